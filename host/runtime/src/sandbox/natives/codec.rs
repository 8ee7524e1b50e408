//! Checksums and text encodings of the `natives` interface: CRC-32 (zlib's), CRC-32C
//! (Castagnoli), base64 (standard and URL-safe) and hex.

use super::{invalid_data, NativeResult};
use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, Engine as _};

/// CRC-32 of `data` continuing from `previous`.
pub(crate) fn crc32(data: &[u8], previous: u32) -> u32 {
    let mut hasher = crc32fast::Hasher::new_with_initial(previous);
    hasher.update(data);
    hasher.finalize()
}

/// CRC-32C of `data` continuing from `previous`.
pub(crate) fn crc32c(data: &[u8], previous: u32) -> u32 {
    crc32c::crc32c_append(previous, data)
}

/// Standard base64 with padding, or URL-safe without.
pub(crate) fn base64_encode(data: &[u8], url_safe: bool) -> String {
    if url_safe {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(data)
    } else {
        base64::engine::general_purpose::STANDARD.encode(data)
    }
}

/// Decodes base64 in either alphabet, padded or not, ignoring ASCII whitespace.
pub(crate) fn base64_decode(text: &str) -> NativeResult<Vec<u8>> {
    const LENIENT: GeneralPurposeConfig = GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true);
    const STANDARD: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, LENIENT);
    const URL_SAFE: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, LENIENT);
    let compact: Vec<u8> = text
        .bytes()
        .filter(|byte| !byte.is_ascii_whitespace())
        .collect();
    let engine = if compact.iter().any(|&b| b == b'-' || b == b'_') {
        &URL_SAFE
    } else {
        &STANDARD
    };
    engine
        .decode(&compact)
        .map_err(|error| invalid_data(format!("the text is not base64: {error}")))
}

/// Lowercase hex.
pub(crate) fn hex_encode(data: &[u8]) -> String {
    hex::encode(data)
}

/// Decodes hex of either case.
pub(crate) fn hex_decode(text: &str) -> NativeResult<Vec<u8>> {
    hex::decode(text).map_err(|error| invalid_data(format!("the text is not hex: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::natives::NativeError;

    #[test]
    fn crcs_match_their_check_values_and_continue_from_a_previous_value() {
        // The "check" value of each CRC catalogue entry: the CRC of "123456789".
        assert_eq!(crc32(b"123456789", 0), 0xCBF4_3926);
        assert_eq!(crc32c(b"123456789", 0), 0xE306_9283);
        assert_eq!(crc32(b"6789", crc32(b"12345", 0)), 0xCBF4_3926);
        assert_eq!(crc32c(b"6789", crc32c(b"12345", 0)), 0xE306_9283);
        assert_eq!(crc32(b"", 0), 0);
    }

    #[test]
    fn base64_round_trips_in_both_alphabets() {
        let data = [0xfb, 0xff, 0xbf, 0x00, 0x01];
        assert_eq!(base64_encode(&data, false), "+/+/AAE=");
        assert_eq!(base64_encode(&data, true), "-_-_AAE");
        for text in ["+/+/AAE=", "+/+/AAE", "-_-_AAE", "-_-_AAE=", " +/+/\nAAE= "] {
            assert_eq!(base64_decode(text).unwrap(), data, "{text:?}");
        }
        assert_eq!(base64_decode("").unwrap(), b"");
    }

    #[test]
    fn text_that_is_not_base64_or_hex_is_invalid_data() {
        for text in ["a", "ab$d", "+/-_", "AAAA=A"] {
            assert!(
                matches!(base64_decode(text), Err(NativeError::InvalidData(_))),
                "{text:?}"
            );
        }
        assert_eq!(hex_encode(&[0xde, 0xad, 0x01]), "dead01");
        assert_eq!(hex_decode("DEad01").unwrap(), [0xde, 0xad, 0x01]);
        for text in ["abc", "zz", "0x00"] {
            let Err(NativeError::InvalidData(message)) = hex_decode(text) else {
                panic!("{text:?} decoded");
            };
            assert!(message.starts_with("the text is not hex: "), "{message}");
        }
    }
}
