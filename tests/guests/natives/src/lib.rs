//! A task computing known vectors through `bench_guest::natives` (hashes, HMAC, CRCs,
//! base64, hex, gzip, AES-GCM) and reporting them; with `--hostile <attack>` its first task
//! asks for an oversized decompression (`decompress`), creates hashers without end
//! (`hashers`), hashes a 24 MiB buffer in one call (`large-input`, which a small memory
//! limit cannot hold twice) or opens every compression stream a sandbox may (`streams`).

use bench_guest::natives::{
    self, AesMode, AesOptions, CompressionFormat, Compressor, HashAlgorithm, Hasher,
};
use bench_guest::{
    export_task, json, BenchmarkConfig, Context, Participant, Task, TaskError, TaskOutput,
    TaskResult,
};

struct Natives;

impl Task for Natives {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("natives", "Natives")
            .participant(Participant::new("p"))
            .iterations(2)
            .custom_cli_flag("--hostile")
    }

    fn run(ctx: &Context) -> TaskResult {
        if ctx.task_index() == 0 {
            match ctx.arg("--hostile") {
                Some("decompress") => return Err(decompress_bomb()?.into()),
                Some("hashers") => return Err(hashers_without_end()?.into()),
                Some("large-input") => {
                    let data = vec![1u8; 24 << 20];
                    let digest = hex(&natives::digest(HashAlgorithm::Sha256, &data)?)?;
                    return Err(TaskError::new(format!("hashed to {digest}")));
                }
                Some("streams") => {
                    let streams = (0..32)
                        .map(|_| Compressor::new(CompressionFormat::Gzip, None))
                        .collect::<Result<Vec<_>, _>>()?;
                    return Err(TaskError::new(format!("{} streams opened", streams.len())));
                }
                _ => {}
            }
        }
        vectors()
    }
}

fn hex(bytes: &[u8]) -> Result<String, TaskError> {
    Ok(natives::hex_encode(bytes)?)
}

fn vectors() -> TaskResult {
    let abc =
        |algorithm| -> Result<String, TaskError> { hex(&natives::digest(algorithm, b"abc")?) };
    let mut million = Hasher::new(HashAlgorithm::Sha256)?;
    let chunk = vec![b'a'; 100_000];
    for _ in 0..10 {
        million.update(&chunk)?;
    }
    let mut hmac = Hasher::hmac(HashAlgorithm::Sha256, b"Jefe")?;
    hmac.update(b"what do ya ")?;
    let copy = hmac.try_clone()?;
    hmac.update(b"want for nothing?")?;
    let text = b"natives ".repeat(1000);
    let gzip = natives::compress(CompressionFormat::Gzip, &text, Some(9))?;
    let key = natives::hex_decode("feffe9928665731c6d6a8f9467308308")?;
    let iv = natives::hex_decode("cafebabefacedbaddecaf888")?;
    let sealed = natives::aes_encrypt(AesMode::Gcm, &key, &iv, b"natives", &AesOptions::default())?;
    let opened = natives::aes_decrypt(AesMode::Gcm, &key, &iv, &sealed, &AesOptions::default())?;
    Ok(TaskOutput::new().data(json!({
        "md5": abc(HashAlgorithm::Md5)?,
        "sha1": abc(HashAlgorithm::Sha1)?,
        "sha256": abc(HashAlgorithm::Sha256)?,
        "sha384": abc(HashAlgorithm::Sha384)?,
        "sha512": abc(HashAlgorithm::Sha512)?,
        "sha256MillionA": hex(&million.finish()?)?,
        "hmacSha256": hex(&hmac.finish()?)?,
        "hmacCopy": hex(&copy.finish()?)?,
        "crc32": natives::crc32(b"123456789", 0)?,
        "crc32Continued": natives::crc32(b"6789", natives::crc32(b"12345", 0)?)?,
        "crc32c": natives::crc32c(b"123456789", 0)?,
        "base64": natives::base64_encode(&[0xfb, 0xff, 0xbf], false)?,
        "base64Url": natives::base64_encode(&[0xfb, 0xff, 0xbf], true)?,
        "base64Decoded": hex(&natives::base64_decode("+/+/")?)?,
        "gzipMagic": hex(&gzip[..2])?,
        "gunzipped": natives::decompress(CompressionFormat::Gzip, &gzip)? == text,
        "aesGcmRoundTrip": String::from_utf8_lossy(&opened),
        "randomLength": natives::random_bytes(16)?.len(),
    })))
}

/// 65 MiB of zeros compressed to about 65 KiB, then decompressed in one call.
fn decompress_bomb() -> Result<natives::NativeError, TaskError> {
    let mut compressor = Compressor::new(CompressionFormat::Gzip, Some(9))?;
    let zeros = vec![0u8; 1 << 20];
    let mut bomb = Vec::new();
    for _ in 0..65 {
        bomb.extend(compressor.push(&zeros)?);
    }
    bomb.extend(compressor.finish()?);
    match natives::decompress(CompressionFormat::Gzip, &bomb) {
        Ok(output) => Err(TaskError::new(format!(
            "decompressed {} bytes",
            output.len()
        ))),
        Err(error) => Ok(error),
    }
}

/// Hashers kept alive until the host refuses one.
fn hashers_without_end() -> Result<natives::NativeError, TaskError> {
    let mut hoard = Vec::new();
    loop {
        match Hasher::new(HashAlgorithm::Sha512) {
            Ok(hasher) => hoard.push(hasher),
            Err(error) => return Ok(error),
        }
    }
}

export_task!(Natives);
