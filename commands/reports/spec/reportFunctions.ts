/**
 * The functions a query of the clinical data source may call (contract E.5): an allow-list, not a
 * deny-list. PostgreSQL has thousands of functions and every release adds some; a list of the
 * harmful ones would be out of date the day a new one shipped, while this list only grows when a
 * report author asks for a function and it is found to compute and nothing else. What is refused:
 * functions that take a transaction id (txid_current: it holds back every projection until the
 * report's transaction ends), lock (advisory locks), sleep, read the system catalogs, settings of
 * the server, other sessions or files (version(), table_to_xml('pg_roles', …), pg_stat_*), and
 * every function outside pg_catalog.
 *
 * Syntax that looks like a call but is not one in the parse tree stays allowed without being
 * listed: COALESCE, NULLIF, GREATEST, LEAST, CASE, CAST, GROUPING, and CURRENT_DATE, CURRENT_USER
 * and the other SQL-standard values. docs/report-spec-guide.md lists these functions for authors.
 */
const AGGREGATES = [
  "count",
  "sum",
  "avg",
  "min",
  "max",
  "bool_and",
  "bool_or",
  "every",
  "string_agg",
  "array_agg",
  "json_agg",
  "jsonb_agg",
  "json_object_agg",
  "jsonb_object_agg",
  "stddev",
  "stddev_pop",
  "stddev_samp",
  "variance",
  "var_pop",
  "var_samp",
  "corr",
  "covar_pop",
  "covar_samp",
  "regr_avgx",
  "regr_avgy",
  "regr_count",
  "regr_intercept",
  "regr_r2",
  "regr_slope",
  "regr_sxx",
  "regr_sxy",
  "regr_syy",
  "percentile_cont",
  "percentile_disc",
  "mode",
  "bit_and",
  "bit_or",
  "bit_xor",
  "range_agg",
  "range_intersect_agg",
  "any_value",
];
const WINDOW = [
  "row_number",
  "rank",
  "dense_rank",
  "percent_rank",
  "cume_dist",
  "ntile",
  "lag",
  "lead",
  "first_value",
  "last_value",
  "nth_value",
];
const MATHEMATICS = [
  "abs",
  "cbrt",
  "ceil",
  "ceiling",
  "degrees",
  "div",
  "exp",
  "factorial",
  "floor",
  "gcd",
  "lcm",
  "ln",
  "log",
  "log10",
  "min_scale",
  "mod",
  "pi",
  "power",
  "radians",
  "round",
  "scale",
  "sign",
  "sqrt",
  "trim_scale",
  "trunc",
  "width_bucket",
  "random",
  "acos",
  "asin",
  "atan",
  "atan2",
  "cos",
  "cot",
  "sin",
  "tan",
  "acosd",
  "asind",
  "atand",
  "atan2d",
  "cosd",
  "cotd",
  "sind",
  "tand",
  "sinh",
  "cosh",
  "tanh",
  "asinh",
  "acosh",
  "atanh",
];
const TEXT = [
  "ascii",
  "bit_length",
  "btrim",
  "char_length",
  "character_length",
  "chr",
  "concat",
  "concat_ws",
  "format",
  "initcap",
  "left",
  "length",
  "lower",
  "lpad",
  "ltrim",
  "md5",
  "normalize",
  "octet_length",
  "overlay",
  "position",
  "quote_ident",
  "quote_literal",
  "quote_nullable",
  "regexp_count",
  "regexp_instr",
  "regexp_like",
  "regexp_match",
  "regexp_matches",
  "regexp_replace",
  "regexp_split_to_array",
  "regexp_split_to_table",
  "regexp_substr",
  "repeat",
  "replace",
  "reverse",
  "right",
  "rpad",
  "rtrim",
  "split_part",
  "starts_with",
  "string_to_array",
  "string_to_table",
  "strpos",
  "substr",
  "substring",
  "to_ascii",
  "to_hex",
  "translate",
  "trim",
  "unistr",
  "upper",
  "sha224",
  "sha256",
  "sha384",
  "sha512",
  "encode",
  "decode",
  "convert",
  "convert_from",
  "convert_to",
  "gen_random_uuid",
  "to_tsvector",
  "to_tsquery",
  "plainto_tsquery",
  "phraseto_tsquery",
  "websearch_to_tsquery",
  "ts_rank",
  "ts_rank_cd",
  "ts_headline",
];
const FORMATTING = ["to_char", "to_date", "to_number", "to_timestamp"];
const DATE_AND_TIME = [
  "age",
  "clock_timestamp",
  "date_bin",
  "date_part",
  "date_trunc",
  "extract",
  "isfinite",
  "justify_days",
  "justify_hours",
  "justify_interval",
  "make_date",
  "make_interval",
  "make_time",
  "make_timestamp",
  "make_timestamptz",
  "now",
  "statement_timestamp",
  "timeofday",
  "transaction_timestamp",
  "timezone",
  "overlaps",
];
const SETS_AND_ARRAYS = [
  "generate_series",
  "generate_subscripts",
  "unnest",
  "array_append",
  "array_cat",
  "array_dims",
  "array_fill",
  "array_length",
  "array_lower",
  "array_ndims",
  "array_position",
  "array_positions",
  "array_prepend",
  "array_remove",
  "array_replace",
  "array_to_string",
  "array_upper",
  "cardinality",
  "trim_array",
  "num_nulls",
  "num_nonnulls",
  "daterange",
  "tsrange",
  "tstzrange",
  "numrange",
  "int4range",
  "int8range",
  "lower",
  "upper",
  "isempty",
  "lower_inc",
  "upper_inc",
  "lower_inf",
  "upper_inf",
  "range_merge",
];
const JSON_FUNCTIONS = [
  "to_json",
  "to_jsonb",
  "row_to_json",
  "array_to_json",
  "json_build_array",
  "jsonb_build_array",
  "json_build_object",
  "jsonb_build_object",
  "json_object",
  "jsonb_object",
  "json_array_elements",
  "jsonb_array_elements",
  "json_array_elements_text",
  "jsonb_array_elements_text",
  "json_array_length",
  "jsonb_array_length",
  "json_each",
  "jsonb_each",
  "json_each_text",
  "jsonb_each_text",
  "json_extract_path",
  "jsonb_extract_path",
  "json_extract_path_text",
  "jsonb_extract_path_text",
  "json_object_keys",
  "jsonb_object_keys",
  "json_populate_record",
  "jsonb_populate_record",
  "json_populate_recordset",
  "jsonb_populate_recordset",
  "json_to_record",
  "jsonb_to_record",
  "json_to_recordset",
  "jsonb_to_recordset",
  "json_strip_nulls",
  "jsonb_strip_nulls",
  "jsonb_set",
  "jsonb_set_lax",
  "jsonb_insert",
  "jsonb_pretty",
  "json_typeof",
  "jsonb_typeof",
  "jsonb_path_exists",
  "jsonb_path_match",
  "jsonb_path_query",
  "jsonb_path_query_array",
  "jsonb_path_query_first",
];
/** Casts written as calls (`date(collected_at)`), and what only describes a value. */
const CASTS_AND_TYPES = [
  "date",
  "time",
  "timestamp",
  "timestamptz",
  "interval",
  "numeric",
  "int2",
  "int4",
  "int8",
  "float4",
  "float8",
  "text",
  "varchar",
  "bool",
  "pg_typeof",
  "pg_size_pretty",
  "pg_size_bytes",
  "pg_column_size",
];
/** Reads one setting of this session (the report's time zone, DateStyle): what it reads is the report's own. */
const SESSION = ["current_setting"];

/** The allow-list by kind, as docs/report-spec-guide.md lists it (a test keeps the two equal). */
export const CLINICAL_FUNCTION_GROUPS: Readonly<Record<string, readonly string[]>> = {
  Aggregates: AGGREGATES,
  "Window functions": WINDOW,
  Mathematics: MATHEMATICS,
  "Text and text search": TEXT,
  Formatting: FORMATTING,
  "Dates and times": DATE_AND_TIME,
  "Sets, arrays and ranges": SETS_AND_ARRAYS,
  JSON: JSON_FUNCTIONS,
  "Casts and types": CASTS_AND_TYPES,
  Session: SESSION,
};

const ALLOWED = new Set(Object.values(CLINICAL_FUNCTION_GROUPS).flat());

/**
 * Refused in a query of any data source, not only the clinical one: they hold a report connection
 * while doing nothing, or (in the service's own database) hold back every reader of new events.
 */
export const STALLING_FUNCTIONS = new Set([
  "pg_sleep",
  "pg_sleep_for",
  "pg_sleep_until",
  "txid_current",
  "pg_current_xact_id",
]);

/** Why a refused function is refused, where that is known; the rest "is not one report SQL may call". */
const REASONS: Array<[RegExp, string]> = [
  [
    /^(txid_current|pg_current_xact_id)$/,
    "takes a transaction id, which holds back every reader of new results until the report ends",
  ],
  [/^pg_sleep/, "sleeps, holding a report connection"],
  [/advisory/, "takes a lock"],
  [
    /^(pg_|to_reg|has_.*_privilege$|.*obj_description$|col_description$|version$|current_database$|inet_server|inet_client)/,
    "looks beyond the clinical data source (the system catalogs, other sessions or privileges)",
  ],
  [/_to_xml/, "reads relations by name, beyond the clinical data source"],
];

export const short = (name: string) => (name.length > 30 ? `${name.slice(0, 30)}…` : name);

/**
 * A sentence saying why the clinical query may not call the function named by `names` (its
 * schema-qualified parts, as the parse tree gives them), or null when it may.
 */
export function clinicalFunctionProblem(names: readonly string[]): string | null {
  const name = names[names.length - 1]!.toLowerCase();
  const schema = names.length > 1 ? names[names.length - 2]!.toLowerCase() : null;
  const shown = short(names.join("."));
  if (schema !== null && schema !== "pg_catalog") {
    return `The query calls ${shown}, a function outside PostgreSQL's own (pg_catalog): report SQL may call only the functions listed in the report guide.`;
  }
  if (ALLOWED.has(name)) return null;
  const reason = refusalReason(name);
  if (!reason)
    return `The query calls ${shown}, which is not one of the functions report SQL may call: use those listed in the report guide.`;
  return `The query calls ${shown}, which ${reason}: report SQL may not call it; use the functions listed in the report guide.`;
}

/** Why the (lower-case) function is refused, where that is known. */
export function refusalReason(name: string): string | undefined {
  return REASONS.find(([pattern]) => pattern.test(name))?.[1];
}
