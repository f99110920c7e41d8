//! CRC-32C (Castagnoli, reflected), as SCTP (RFC 9260) and iSCSI (RFC 3720) use it.

/// Reflected Castagnoli polynomial.
const POLY: u32 = 0x82F6_3B78;

/// Byte-at-a-time table, built at compile time.
const TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// Advances the raw (un-inverted) CRC register over `data`.
fn update(mut reg: u32, data: &[u8]) -> u32 {
    for &b in data {
        reg = (reg >> 8) ^ TABLE[((reg ^ b as u32) & 0xFF) as usize];
    }
    reg
}

/// CRC-32C of `data` (init and final XOR 0xFFFFFFFF): `"123456789"` gives 0xE3069283.
#[inline]
pub fn crc32c(data: &[u8]) -> u32 {
    crc32c_append(0, data)
}

/// Continues a CRC-32C: `crc32c_append(crc32c(a), b) == crc32c(a ++ b)`.
#[inline]
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    !update(!crc, data)
}
