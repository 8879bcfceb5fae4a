// The package ships no types; these describe the two calls we make of its UcumLhcUtils.
declare module "@lhncbc/ucum-lhc" {
  export interface UcumValidation {
    status: "valid" | "invalid" | "error";
    ucumCode: string | null;
    msg: string[];
  }
  export interface UcumConversion {
    status: "succeeded" | "failed" | "error";
    toVal: number | null;
    msg: string[];
  }
  export interface UcumLhcUtils {
    validateUnitString(unit: string, suggest?: boolean): UcumValidation;
    convertUnitTo(fromUnit: string, fromValue: number, toUnit: string): UcumConversion;
  }
  const ucum: { UcumLhcUtils: { getInstance(): UcumLhcUtils } };
  export default ucum;
}
