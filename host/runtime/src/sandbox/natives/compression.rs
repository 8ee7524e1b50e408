//! gzip, zlib ("deflate") and raw deflate of the `natives` interface (flate2 over
//! miniz_oxide), whole-buffer and as streams. Output goes to a [`Sink`] that refuses to hold
//! more than its bound, so a small compressed input cannot make the host allocate without
//! limit: a decompression past the bound fails with `limit` and the stream is spent.

use super::{invalid_argument, invalid_data, limit, NativeError, NativeResult};
use bench_contract::bench::task::natives::CompressionFormat;
use flate2::write::{
    DeflateDecoder, DeflateEncoder, GzEncoder, MultiGzDecoder, ZlibDecoder, ZlibEncoder,
};
use flate2::Compression;
use std::io::{self, Write};

/// The level when none is asked for (zlib's default).
const DEFAULT_LEVEL: u8 = 6;

/// Where a stream writes its output: at most `bound` bytes between two drains.
#[derive(Debug)]
pub(crate) struct Sink {
    output: Vec<u8>,
    bound: usize,
    overflowed: bool,
}

impl Sink {
    fn new(bound: usize) -> Self {
        Self {
            output: Vec::new(),
            bound,
            overflowed: false,
        }
    }

    fn drain(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.output)
    }
}

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.output.len().saturating_add(data.len()) > self.bound {
            self.overflowed = true;
            return Err(io::Error::other("output bound"));
        }
        self.output.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A flate2 stream writing to a [`Sink`]: spent once finished or failed.
struct Spendable<S> {
    stream: Option<S>,
    /// What its output is, for the bound's message.
    output: &'static str,
}

/// A flate2 stream over a [`Sink`].
trait SinkStream {
    fn sink(&mut self) -> &mut Sink;
}

impl<S: SinkStream> Spendable<S> {
    /// Runs one operation and drains the output; a failed operation spends the stream.
    fn step(&mut self, run: impl FnOnce(&mut S) -> io::Result<()>) -> NativeResult<Vec<u8>> {
        let stream = self.stream.as_mut().ok_or_else(ended)?;
        let outcome = run(stream);
        let sink = stream.sink();
        match outcome {
            Ok(()) => Ok(sink.drain()),
            Err(error) => {
                let error = stream_error(sink, &error, self.output);
                self.stream = None;
                Err(error)
            }
        }
    }

    /// Bounds the output of the next operations to `bound` bytes.
    fn bound_output(&mut self, bound: usize) {
        if let Some(stream) = self.stream.as_mut() {
            stream.sink().bound = bound;
        }
    }

    /// The last operation: the stream is spent afterwards.
    fn last_step(&mut self, run: impl FnOnce(&mut S) -> io::Result<()>) -> NativeResult<Vec<u8>> {
        let output = self.step(run);
        self.stream = None;
        output
    }
}

/// Runs `$body` on the flate2 stream inside any variant of `$value` (an [`Encoder`] or a
/// [`Decoder`]: both have the variants `Gzip`, `Zlib` and `Raw`).
macro_rules! on_stream {
    ($kind:ident, $value:expr, $stream:ident => $body:expr) => {
        match $value {
            $kind::Gzip($stream) => $body,
            $kind::Zlib($stream) => $body,
            $kind::Raw($stream) => $body,
        }
    };
}

enum Encoder {
    Gzip(GzEncoder<Sink>),
    Zlib(ZlibEncoder<Sink>),
    Raw(DeflateEncoder<Sink>),
}

impl SinkStream for Encoder {
    fn sink(&mut self) -> &mut Sink {
        on_stream!(Encoder, self, stream => stream.get_mut())
    }
}

enum Decoder {
    Gzip(MultiGzDecoder<Sink>),
    Zlib(ZlibDecoder<Sink>),
    Raw(DeflateDecoder<Sink>),
}

impl SinkStream for Decoder {
    fn sink(&mut self) -> &mut Sink {
        on_stream!(Decoder, self, stream => stream.get_mut())
    }
}

/// A compressing stream.
pub(crate) struct Compressor(Spendable<Encoder>);

impl Compressor {
    /// A stream compressing to `format` at `level` (0–9), its output at most `bound` bytes
    /// per call.
    pub(crate) fn new(
        format: CompressionFormat,
        level: Option<u8>,
        bound: usize,
    ) -> NativeResult<Self> {
        let level = match level.unwrap_or(DEFAULT_LEVEL) {
            level @ 0..=9 => Compression::new(level.into()),
            other => {
                return Err(invalid_argument(format!(
                    "the compression level is {other}; it must be 0 to 9"
                )))
            }
        };
        let sink = Sink::new(bound);
        let encoder = match format {
            CompressionFormat::Gzip => Encoder::Gzip(GzEncoder::new(sink, level)),
            CompressionFormat::Deflate => Encoder::Zlib(ZlibEncoder::new(sink, level)),
            CompressionFormat::DeflateRaw => Encoder::Raw(DeflateEncoder::new(sink, level)),
        };
        Ok(Self(Spendable {
            stream: Some(encoder),
            output: "compressed output",
        }))
    }

    /// Bounds the output of each later call to `bound` bytes.
    pub(crate) fn bound_output(&mut self, bound: usize) {
        self.0.bound_output(bound);
    }

    /// Compresses `data`; returns the output ready so far.
    pub(crate) fn push(&mut self, data: &[u8]) -> NativeResult<Vec<u8>> {
        self.0
            .step(|encoder| on_stream!(Encoder, encoder, stream => stream.write_all(data)))
    }

    /// Returns all output so far, ending on a byte boundary.
    pub(crate) fn flush(&mut self) -> NativeResult<Vec<u8>> {
        self.0
            .step(|encoder| on_stream!(Encoder, encoder, stream => stream.flush()))
    }

    /// Ends the stream and returns the rest of its output.
    pub(crate) fn finish(&mut self) -> NativeResult<Vec<u8>> {
        self.0
            .last_step(|encoder| on_stream!(Encoder, encoder, stream => stream.try_finish()))
    }
}

/// A decompressing stream.
pub(crate) struct Decompressor(Spendable<Decoder>);

impl Decompressor {
    /// A stream decompressing `format`, its output at most `bound` bytes per call.
    pub(crate) fn new(format: CompressionFormat, bound: usize) -> Self {
        let sink = Sink::new(bound);
        let decoder = match format {
            CompressionFormat::Gzip => Decoder::Gzip(MultiGzDecoder::new(sink)),
            CompressionFormat::Deflate => Decoder::Zlib(ZlibDecoder::new(sink)),
            CompressionFormat::DeflateRaw => Decoder::Raw(DeflateDecoder::new(sink)),
        };
        Self(Spendable {
            stream: Some(decoder),
            output: "decompressed output",
        })
    }

    /// Bounds the output of each later call to `bound` bytes.
    pub(crate) fn bound_output(&mut self, bound: usize) {
        self.0.bound_output(bound);
    }

    /// Decompresses `data`; returns the output ready so far.
    pub(crate) fn push(&mut self, data: &[u8]) -> NativeResult<Vec<u8>> {
        self.0.step(|decoder| {
            on_stream!(Decoder, decoder, stream => {
                stream.write_all(data)?;
                stream.flush()
            })
        })
    }

    /// Ends the stream (an error when it is truncated) and returns the rest of its output.
    pub(crate) fn finish(&mut self) -> NativeResult<Vec<u8>> {
        self.0
            .last_step(|decoder| on_stream!(Decoder, decoder, stream => stream.try_finish()))
    }
}

/// `data` compressed in one call.
pub(crate) fn compress(
    format: CompressionFormat,
    data: &[u8],
    level: Option<u8>,
    bound: usize,
) -> NativeResult<Vec<u8>> {
    let mut stream = Compressor::new(format, level, bound)?;
    stream.0.last_step(|encoder| {
        on_stream!(Encoder, encoder, stream => {
            stream.write_all(data)?;
            stream.try_finish()
        })
    })
}

/// `data` decompressed in one call: the whole output at most `bound` bytes.
pub(crate) fn decompress(
    format: CompressionFormat,
    data: &[u8],
    bound: usize,
) -> NativeResult<Vec<u8>> {
    let mut stream = Decompressor::new(format, bound);
    stream.0.last_step(|decoder| {
        on_stream!(Decoder, decoder, stream => {
            stream.write_all(data)?;
            stream.try_finish()
        })
    })
}

fn ended() -> NativeError {
    invalid_argument("the stream has ended (finished, or failed earlier)")
}

/// The native error of a failed stream operation.
fn stream_error(sink: &Sink, error: &io::Error, what: &str) -> NativeError {
    if sink.overflowed {
        return limit(format!("the {what} is larger than {} bytes", sink.bound));
    }
    match error.kind() {
        io::ErrorKind::WriteZero => {
            invalid_data("data continues after the end of the compressed stream")
        }
        io::ErrorKind::UnexpectedEof => invalid_data("the compressed data is truncated"),
        _ => invalid_data(format!("the compressed data is corrupt: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    const BOUND: usize = 1 << 20;
    const FORMATS: [CompressionFormat; 3] = [
        CompressionFormat::Gzip,
        CompressionFormat::Deflate,
        CompressionFormat::DeflateRaw,
    ];

    fn text(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| b"natives "[i % 8] ^ (i / 8 % 3) as u8)
            .collect()
    }

    #[test]
    fn every_format_round_trips_whole_and_in_pieces() {
        let data = text(100_000);
        for format in FORMATS {
            let packed = compress(format, &data, None, BOUND).unwrap();
            assert!(
                packed.len() < data.len() / 4,
                "{format:?}: {}",
                packed.len()
            );
            assert_eq!(decompress(format, &packed, BOUND).unwrap(), data);

            let mut compressor = Compressor::new(format, Some(9), BOUND).unwrap();
            let mut streamed = Vec::new();
            for piece in data.chunks(7_001) {
                streamed.extend(compressor.push(piece).unwrap());
            }
            streamed.extend(compressor.flush().unwrap());
            streamed.extend(compressor.finish().unwrap());
            let mut decompressor = Decompressor::new(format, BOUND);
            let mut unpacked = Vec::new();
            for piece in streamed.chunks(333) {
                unpacked.extend(decompressor.push(piece).unwrap());
            }
            unpacked.extend(decompressor.finish().unwrap());
            assert_eq!(unpacked, data, "{format:?}");
        }
    }

    #[test]
    fn what_flate2_readers_make_decompresses_and_gzip_members_concatenate() {
        let data = text(5_000);
        let gzip = compress(CompressionFormat::Gzip, &data, Some(1), BOUND).unwrap();
        let mut reader = flate2::read::GzDecoder::new(gzip.as_slice());
        let mut read = Vec::new();
        reader.read_to_end(&mut read).unwrap();
        assert_eq!(read, data);
        let two = [gzip.clone(), gzip].concat();
        let unpacked = decompress(CompressionFormat::Gzip, &two, BOUND).unwrap();
        assert_eq!(unpacked, [data.clone(), data].concat());
    }

    #[test]
    fn a_bomb_stops_at_the_output_bound_with_a_limit_error() {
        let zeros = vec![0u8; 4 << 20];
        for format in FORMATS {
            let bomb = compress(format, &zeros, Some(9), usize::MAX).unwrap();
            assert!(bomb.len() < 16 << 10, "{}", bomb.len());
            let error = decompress(format, &bomb, BOUND).unwrap_err();
            assert_eq!(
                error,
                limit("the decompressed output is larger than 1048576 bytes"),
                "{format:?}"
            );
            let mut stream = Decompressor::new(format, BOUND);
            assert!(matches!(stream.push(&bomb), Err(NativeError::Limit(_))));
            assert!(
                matches!(stream.push(&bomb), Err(NativeError::InvalidArgument(_))),
                "a stream past its bound is spent"
            );
        }
        // Exactly the bound is fine, whole or streamed.
        let exact = compress(CompressionFormat::Gzip, &zeros[..BOUND], None, BOUND).unwrap();
        assert_eq!(
            decompress(CompressionFormat::Gzip, &exact, BOUND)
                .unwrap()
                .len(),
            BOUND
        );
    }

    #[test]
    fn truncated_corrupt_and_trailing_data_are_invalid_data() {
        let data = text(10_000);
        for format in FORMATS {
            let packed = compress(format, &data, None, BOUND).unwrap();
            let truncated = &packed[..packed.len() / 2];
            assert_eq!(
                decompress(format, truncated, BOUND),
                Err(invalid_data("the compressed data is truncated")),
                "{format:?}"
            );
            let garbage = vec![0xffu8; 64];
            assert!(
                matches!(
                    decompress(format, &garbage, BOUND),
                    Err(NativeError::InvalidData(_))
                ),
                "{format:?}"
            );
        }
        let zlib = compress(CompressionFormat::Deflate, &data, None, BOUND).unwrap();
        assert_eq!(
            decompress(
                CompressionFormat::Deflate,
                &[zlib, b"tail".to_vec()].concat(),
                BOUND
            ),
            Err(invalid_data(
                "data continues after the end of the compressed stream"
            ))
        );
    }

    #[test]
    fn levels_past_nine_are_refused_and_finished_streams_take_nothing() {
        assert!(matches!(
            Compressor::new(CompressionFormat::Gzip, Some(10), BOUND),
            Err(NativeError::InvalidArgument(_))
        ));
        let mut stream = Compressor::new(CompressionFormat::Gzip, Some(0), BOUND).unwrap();
        stream.finish().unwrap();
        assert!(matches!(
            stream.push(b"x"),
            Err(NativeError::InvalidArgument(_))
        ));
        assert!(matches!(
            stream.finish(),
            Err(NativeError::InvalidArgument(_))
        ));
    }
}
