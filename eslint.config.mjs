// The linter: typescript-eslint's type-aware rules where they catch real faults (a promise
// nobody awaits, a promise where a callback's result is ignored), the recommended rules
// otherwise; layout is Prettier's alone (eslint-config-prettier turns off what would argue).
// Why these and not Biome: docs/decisions/0072-prettier-formats-eslint-checks-promises.md.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";

export default tseslint.config(
  {
    ignores: ["node_modules/**", "dist/**", "web/dist/**", "test-output/**", "bench/results*.json", "**/*.d.ts"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ["*.mjs", "src/app/*.mjs", "web/*.mjs"],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/require-await": "off",
    },
  },
  prettier,
);
