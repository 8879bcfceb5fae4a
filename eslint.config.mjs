// The linter: typescript-eslint's type-aware rules where they catch real faults (a promise
// nobody awaits, a promise where a callback's result is ignored), the recommended rules
// otherwise; layout is Prettier's alone (eslint-config-prettier turns off what would argue).
// Why these and not Biome: docs/decisions/0072-prettier-formats-eslint-checks-promises.md.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";
import globals from "globals";

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
          allowDefaultProject: ["*.mjs", "src/app/*.mjs", "web/*.mjs", "bench/*.mjs", "src/docs/*.js"],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      // Control characters in a pattern are how we find and strip them from what we store and send.
      "no-control-regex": "off",
      // Leaving a field out by destructuring (`const { secret, ...shown } = row`) is how we omit one.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true, caughtErrors: "none" },
      ],
    },
  },
  {
    // Plain JavaScript run by Node (the CLI's launcher, the web build, bench helpers).
    files: ["**/*.mjs"],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // The API docs page's script, in the browser.
    files: ["src/docs/*.js"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests and benches read answers parsed from JSON, whose honest type there is `any`; chai
    // asserts with property reads (`expect(x).to.be.true`).
    files: ["test/**", "bench/**"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-expressions": "off",
    },
  },
  prettier,
);
