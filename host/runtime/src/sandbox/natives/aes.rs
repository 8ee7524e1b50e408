//! AES of the `natives` interface, as WebCrypto defines its modes: GCM (the tag after the
//! ciphertext, 96–128-bit tags), CBC with PKCS#7 padding, and CTR with a counter of the
//! rightmost `counter-length` bits of the counter block (wrapping within them).

use super::{invalid_argument, invalid_data, NativeError, NativeResult};
use aes::cipher::block_padding::Pkcs7;
use aes::cipher::consts::{U12, U13, U14, U15, U16};
use aes::cipher::generic_array::ArrayLength;
use aes::cipher::{
    BlockCipher, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, BlockSizeUser, KeyInit, KeyIvInit,
    StreamCipher,
};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::aead::AeadInPlace;
use aes_gcm::{AesGcm, Nonce, Tag, TagSize};
use bench_contract::bench::task::natives::{AesMode, AesOptions};

/// Which way the data goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Encrypt,
    Decrypt,
}

/// Runs `$body` with `$cipher` the AES of the key's length.
macro_rules! with_key {
    ($key:expr, $cipher:ident => $body:expr) => {
        match $key.len() {
            16 => {
                type $cipher = Aes128;
                $body
            }
            24 => {
                type $cipher = Aes192;
                $body
            }
            32 => {
                type $cipher = Aes256;
                $body
            }
            other => Err(invalid_argument(format!(
                "an AES key is 16, 24 or 32 bytes, not {other}"
            ))),
        }
    };
}

/// `data` encrypted or decrypted with AES in `mode`.
pub(crate) fn apply(
    direction: Direction,
    mode: AesMode,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    options: &AesOptions,
) -> NativeResult<Vec<u8>> {
    match mode {
        AesMode::Gcm => {
            let aad = options.additional_data.as_deref().unwrap_or_default();
            let tag_bytes = gcm_tag_bytes(options.tag_length)?;
            let call = Gcm {
                direction,
                key,
                iv,
                data,
                aad,
            };
            with_key!(key, C => call.run::<C>(tag_bytes))
        }
        AesMode::Cbc => {
            let iv = block_iv(iv, "AES-CBC needs a 16-byte IV")?;
            with_key!(key, C => cbc::<C>(direction, key, &iv, data))
        }
        AesMode::Ctr => {
            let counter = block_iv(iv, "AES-CTR needs a 16-byte counter block")?;
            let bits = counter_bits(options.counter_length)?;
            with_key!(key, C => ctr::<C>(key, counter, bits, data))
        }
    }
}

/// The block cipher AES-GCM takes.
trait GcmCipher: BlockCipher + BlockSizeUser<BlockSize = U16> + BlockEncrypt + KeyInit {}
impl<C: BlockCipher + BlockSizeUser<BlockSize = U16> + BlockEncrypt + KeyInit> GcmCipher for C {}

fn gcm_tag_bytes(bits: Option<u32>) -> NativeResult<usize> {
    match bits.unwrap_or(128) {
        bits @ (96 | 104 | 112 | 120 | 128) => Ok(bits as usize / 8),
        other => Err(invalid_argument(format!(
            "the AES-GCM tag length is {other} bits; bench supports 96, 104, 112, 120 and 128"
        ))),
    }
}

/// One AES-GCM call.
struct Gcm<'a> {
    direction: Direction,
    key: &'a [u8],
    iv: &'a [u8],
    data: &'a [u8],
    aad: &'a [u8],
}

impl Gcm<'_> {
    /// Picks the nonce size (a type in aes-gcm) from the IV's length.
    fn run<C: GcmCipher>(&self, tag_bytes: usize) -> NativeResult<Vec<u8>> {
        match self.iv.len() {
            12 => self.with_nonce::<C, U12>(tag_bytes),
            16 => self.with_nonce::<C, U16>(tag_bytes),
            other => Err(invalid_argument(format!(
                "the AES-GCM IV is {other} bytes; bench supports 12 and 16"
            ))),
        }
    }

    /// Picks the tag size (a type in aes-gcm) from its checked length.
    fn with_nonce<C: GcmCipher, N: ArrayLength<u8>>(
        &self,
        tag_bytes: usize,
    ) -> NativeResult<Vec<u8>> {
        match tag_bytes {
            12 => self.sized::<C, N, U12>(),
            13 => self.sized::<C, N, U13>(),
            14 => self.sized::<C, N, U14>(),
            15 => self.sized::<C, N, U15>(),
            _ => self.sized::<C, N, U16>(),
        }
    }

    fn sized<C: GcmCipher, N: ArrayLength<u8>, T: TagSize>(&self) -> NativeResult<Vec<u8>> {
        let cipher = AesGcm::<C, N, T>::new_from_slice(self.key)
            .map_err(|_| invalid_argument("the AES key has the wrong length"))?;
        let nonce = Nonce::<N>::from_slice(self.iv);
        match self.direction {
            Direction::Encrypt => {
                let mut buffer = self.data.to_vec();
                let tag = cipher
                    .encrypt_in_place_detached(nonce, self.aad, &mut buffer)
                    .map_err(|_| invalid_argument("the data is too long for AES-GCM"))?;
                buffer.extend_from_slice(&tag);
                Ok(buffer)
            }
            Direction::Decrypt => {
                let Some(split) = self.data.len().checked_sub(T::USIZE) else {
                    return Err(invalid_data(format!(
                        "AES-GCM data of {} bytes is shorter than its {}-byte tag",
                        self.data.len(),
                        T::USIZE
                    )));
                };
                let (ciphertext, tag) = self.data.split_at(split);
                let mut buffer = ciphertext.to_vec();
                cipher
                    .decrypt_in_place_detached(
                        nonce,
                        self.aad,
                        &mut buffer,
                        Tag::<T>::from_slice(tag),
                    )
                    .map_err(|_| not_authentic())?;
                Ok(buffer)
            }
        }
    }
}

fn not_authentic() -> NativeError {
    invalid_data("the AES-GCM data did not authenticate (wrong key, IV, additional data or tag)")
}

fn block_iv(iv: &[u8], message: &str) -> NativeResult<[u8; 16]> {
    iv.try_into()
        .map_err(|_| invalid_argument(format!("{message}, not {} bytes", iv.len())))
}

fn cbc<C>(direction: Direction, key: &[u8], iv: &[u8; 16], data: &[u8]) -> NativeResult<Vec<u8>>
where
    C: BlockCipher + BlockEncryptMut + BlockDecryptMut + KeyInit,
    C: BlockSizeUser<BlockSize = U16>,
{
    let wrong_key = |_| invalid_argument("the AES key has the wrong length");
    match direction {
        Direction::Encrypt => Ok(cbc::Encryptor::<C>::new_from_slices(key, iv)
            .map_err(wrong_key)?
            .encrypt_padded_vec_mut::<Pkcs7>(data)),
        Direction::Decrypt => {
            if data.is_empty() || !data.len().is_multiple_of(16) {
                return Err(invalid_data(format!(
                    "AES-CBC data is whole 16-byte blocks, not {} bytes",
                    data.len()
                )));
            }
            cbc::Decryptor::<C>::new_from_slices(key, iv)
                .map_err(wrong_key)?
                .decrypt_padded_vec_mut::<Pkcs7>(data)
                .map_err(|_| invalid_data("the AES-CBC padding is not PKCS#7 (wrong key or IV?)"))
        }
    }
}

fn counter_bits(length: Option<u32>) -> NativeResult<u32> {
    match length.unwrap_or(128) {
        bits @ 1..=128 => Ok(bits),
        other => Err(invalid_argument(format!(
            "the AES-CTR counter length is {other} bits; it must be 1 to 128"
        ))),
    }
}

/// CTR over the rightmost `bits` of `counter`: the keystream of the blocks up to the wrap,
/// then of the blocks from the wrapped (zeroed) counter. More blocks than the counter has
/// values would repeat the keystream, so that is refused.
fn ctr<C>(key: &[u8], counter: [u8; 16], bits: u32, data: &[u8]) -> NativeResult<Vec<u8>>
where
    C: BlockCipher + BlockEncryptMut + KeyInit + BlockSizeUser<BlockSize = U16>,
{
    let mut output = data.to_vec();
    let initial = u128::from_be_bytes(counter);
    let blocks = (data.len() as u128).div_ceil(16);
    let (first, rest) = if bits == 128 {
        (output.as_mut_slice(), None)
    } else {
        let values = 1u128 << bits;
        if blocks > values {
            return Err(invalid_argument(format!(
                "AES-CTR with a {bits}-bit counter encrypts at most {values} blocks; the data \
                 has {blocks}"
            )));
        }
        let mask = values - 1;
        let before_wrap = values - (initial & mask);
        if blocks <= before_wrap {
            (output.as_mut_slice(), None)
        } else {
            // `before_wrap` < `blocks`, so its bytes fit the data's length.
            let (first, rest) = output.split_at_mut(before_wrap as usize * 16);
            (first, Some((rest, initial & !mask)))
        }
    };
    let keystream = |counter: u128, part: &mut [u8]| -> NativeResult<()> {
        ctr::Ctr128BE::<C>::new_from_slices(key, &counter.to_be_bytes())
            .map_err(|_| invalid_argument("the AES key has the wrong length"))?
            .apply_keystream(part);
        Ok(())
    };
    keystream(initial, first)?;
    if let Some((rest, wrapped)) = rest {
        keystream(wrapped, rest)?;
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(text: &str) -> Vec<u8> {
        hex::decode(text.replace(' ', "")).unwrap()
    }

    fn options() -> AesOptions {
        AesOptions {
            additional_data: None,
            tag_length: None,
            counter_length: None,
        }
    }

    fn run(
        direction: Direction,
        mode: AesMode,
        key: &str,
        iv: &str,
        data: &[u8],
        options: &AesOptions,
    ) -> NativeResult<Vec<u8>> {
        apply(direction, mode, &unhex(key), &unhex(iv), data, options)
    }

    #[test]
    fn gcm_matches_the_nist_vectors_and_truncates_its_tag() {
        // McGrew & Viega, "The Galois/Counter Mode of Operation", test case 4 (AES-128).
        let key = "feffe9928665731c6d6a8f9467308308";
        let iv = "cafebabefacedbaddecaf888";
        let plaintext = unhex(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
        );
        let with_aad = AesOptions {
            additional_data: Some(unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2")),
            ..options()
        };
        let sealed = run(
            Direction::Encrypt,
            AesMode::Gcm,
            key,
            iv,
            &plaintext,
            &with_aad,
        )
        .unwrap();
        assert_eq!(
            hex::encode(&sealed),
            "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091\
             5bc94fbc3221a5db94fae95ae7121a47"
        );
        let opened = run(
            Direction::Decrypt,
            AesMode::Gcm,
            key,
            iv,
            &sealed,
            &with_aad,
        )
        .unwrap();
        assert_eq!(opened, plaintext);

        let short = AesOptions {
            tag_length: Some(96),
            ..with_aad.clone()
        };
        let truncated = run(
            Direction::Encrypt,
            AesMode::Gcm,
            key,
            iv,
            &plaintext,
            &short,
        )
        .unwrap();
        assert_eq!(truncated, sealed[..sealed.len() - 4]);
        assert_eq!(
            run(
                Direction::Decrypt,
                AesMode::Gcm,
                key,
                iv,
                &truncated,
                &short
            )
            .unwrap(),
            plaintext
        );

        let mut tampered = sealed.clone();
        tampered[0] ^= 1;
        assert_eq!(
            run(
                Direction::Decrypt,
                AesMode::Gcm,
                key,
                iv,
                &tampered,
                &with_aad
            ),
            Err(not_authentic())
        );
        assert_eq!(
            run(
                Direction::Decrypt,
                AesMode::Gcm,
                key,
                iv,
                &sealed,
                &options()
            ),
            Err(not_authentic())
        );
    }

    #[test]
    fn cbc_and_ctr_match_the_sp800_38a_vectors() {
        let key = "2b7e151628aed2a6abf7158809cf4f3c";
        let block = unhex("6bc1bee22e409f96e93d7e117393172a");
        let cbc = run(
            Direction::Encrypt,
            AesMode::Cbc,
            key,
            "000102030405060708090a0b0c0d0e0f",
            &block,
            &options(),
        )
        .unwrap();
        // F.2.1 CBC-AES128 block 1, then the PKCS#7 block of sixteen 0x10.
        assert_eq!(hex::encode(&cbc[..16]), "7649abac8119b246cee98e9b12e9197d");
        assert_eq!(cbc.len(), 32);
        assert_eq!(
            run(
                Direction::Decrypt,
                AesMode::Cbc,
                key,
                "000102030405060708090a0b0c0d0e0f",
                &cbc,
                &options()
            )
            .unwrap(),
            block
        );
        // F.5.1 CTR-AES128, blocks 1 and 2.
        let counter = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
        let two = unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
        let ctr = run(
            Direction::Encrypt,
            AesMode::Ctr,
            key,
            counter,
            &two,
            &options(),
        )
        .unwrap();
        assert_eq!(
            hex::encode(&ctr),
            "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
        );
        assert_eq!(
            run(
                Direction::Decrypt,
                AesMode::Ctr,
                key,
                counter,
                &ctr,
                &options()
            )
            .unwrap(),
            two
        );
    }

    #[test]
    fn a_short_ctr_counter_wraps_within_its_bits_and_refuses_to_repeat() {
        let key = "2b7e151628aed2a6abf7158809cf4f3c";
        let data = vec![0u8; 48];
        let eight = |bits| AesOptions {
            counter_length: Some(bits),
            ..options()
        };
        // With an 8-bit counter at 0xff, the second block uses counter ...00 (not ...0100).
        let wrapped = run(
            Direction::Encrypt,
            AesMode::Ctr,
            key,
            "000000000000000000000000000001ff",
            &data,
            &eight(8),
        )
        .unwrap();
        let at_ff = run(
            Direction::Encrypt,
            AesMode::Ctr,
            key,
            "000000000000000000000000000001ff",
            &data[..16],
            &options(),
        )
        .unwrap();
        let at_00 = run(
            Direction::Encrypt,
            AesMode::Ctr,
            key,
            "00000000000000000000000000000100",
            &data[..32],
            &options(),
        )
        .unwrap();
        assert_eq!(wrapped[..16], at_ff[..]);
        assert_eq!(wrapped[16..], at_00[..]);
        // Two blocks fit a 1-bit counter; three would reuse a counter value.
        assert!(run(
            Direction::Encrypt,
            AesMode::Ctr,
            key,
            "00000000000000000000000000000001",
            &data[..32],
            &eight(1)
        )
        .is_ok());
        assert!(matches!(
            run(
                Direction::Encrypt,
                AesMode::Ctr,
                key,
                "00000000000000000000000000000001",
                &data,
                &eight(1)
            ),
            Err(NativeError::InvalidArgument(_))
        ));
    }

    #[test]
    fn wrong_sizes_are_invalid_arguments_naming_the_size() {
        let cases = [
            (
                AesMode::Gcm,
                "00",
                "000000000000000000000000",
                "an AES key is 16, 24 or 32 bytes, not 1",
            ),
            (
                AesMode::Gcm,
                "000102030405060708090a0b0c0d0e0f",
                "00",
                "the AES-GCM IV is 1 bytes; bench supports 12 and 16",
            ),
            (
                AesMode::Cbc,
                "000102030405060708090a0b0c0d0e0f",
                "00",
                "AES-CBC needs a 16-byte IV, not 1 bytes",
            ),
            (
                AesMode::Ctr,
                "000102030405060708090a0b0c0d0e0f",
                "",
                "AES-CTR needs a 16-byte counter block, not 0 bytes",
            ),
        ];
        for (mode, key, iv, message) in cases {
            assert_eq!(
                run(Direction::Encrypt, mode, key, iv, b"x", &options()),
                Err(invalid_argument(message)),
                "{mode:?}"
            );
        }
        let odd_tag = AesOptions {
            tag_length: Some(64),
            ..options()
        };
        assert!(matches!(
            run(
                Direction::Encrypt,
                AesMode::Gcm,
                "000102030405060708090a0b0c0d0e0f",
                "000000000000000000000000",
                b"x",
                &odd_tag
            ),
            Err(NativeError::InvalidArgument(_))
        ));
        let no_counter = AesOptions {
            counter_length: Some(0),
            ..options()
        };
        assert!(run(
            Direction::Encrypt,
            AesMode::Ctr,
            "000102030405060708090a0b0c0d0e0f",
            "000102030405060708090a0b0c0d0e0f",
            b"x",
            &no_counter
        )
        .is_err());
        assert!(matches!(
            run(
                Direction::Decrypt,
                AesMode::Cbc,
                "000102030405060708090a0b0c0d0e0f",
                "000102030405060708090a0b0c0d0e0f",
                b"short",
                &options()
            ),
            Err(NativeError::InvalidData(_))
        ));
        assert!(matches!(
            run(
                Direction::Decrypt,
                AesMode::Gcm,
                "000102030405060708090a0b0c0d0e0f",
                "000000000000000000000000",
                b"short",
                &options()
            ),
            Err(NativeError::InvalidData(_))
        ));
    }
}
