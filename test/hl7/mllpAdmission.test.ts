import { expect } from "chai";
import { addressGroup } from "../../src/ingestion/hl7/mllpAdmission.ts";

/* The address an MLLP connection's keyless share is counted under (HL7_MLLP_KEYLESS_PER_ADDRESS). */

describe("MLLP admission: address groups", () => {
  it("counts an IPv4 address as it is, also when written as IPv4-mapped IPv6", () => {
    expect(addressGroup("10.1.2.3")).to.equal("10.1.2.3");
    expect(addressGroup("::ffff:10.1.2.3")).to.equal("10.1.2.3");
  });

  it("counts an IPv6 address by its /64, however it is written", () => {
    const group = "2001:db8:aa:1::/64";
    for (const address of [
      "2001:db8:aa:1::5",
      "2001:0db8:00aa:0001:ffff:1:2:3",
      "2001:DB8:AA:1:0:0:0:1",
      "2001:db8:aa:1::5%eth0",
    ])
      expect(addressGroup(address), address).to.equal(group);
    expect(addressGroup("2001:db8:aa:2::5")).to.not.equal(group);
    expect(addressGroup("::1")).to.equal("0:0:0:0::/64");
    expect(addressGroup("fe80::1")).to.equal("fe80:0:0:0::/64");
  });
});
