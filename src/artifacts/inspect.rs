//! What a file is: its type from its bytes (never from its name), its EXIF
//! capture time, its dimensions and a thumbnail. A photo that cannot be
//! decoded (HEIC has no pure-Rust decoder) is still accepted and gets a
//! placeholder thumbnail, because losing a technician's photo is worse than
//! not previewing it.

use std::io::Cursor;
use ts_rs::TS;

use image::{DynamicImage, ImageFormat, ImageReader, Limits};

use super::ArtifactError;

/// Largest file accepted. Phone photos are 2–15 MB; this leaves room for
/// scanned PDFs without letting a video in by mistake.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;
const THUMB_EDGE: u32 = 320;
/// The `image` crate's own JPEG default, which the thumbnails always had.
const THUMB_QUALITY: u8 = 75;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    Image,
    Document,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ThumbnailKind {
    Generated,
    Placeholder,
    None,
}

impl ThumbnailKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Generated => "generated",
            Self::Placeholder => "placeholder",
            Self::None => "none",
        }
    }
    pub fn parse(s: &str) -> Self {
        match s {
            "generated" => Self::Generated,
            "placeholder" => Self::Placeholder,
            _ => Self::None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Inspection {
    pub mime: &'static str,
    pub kind: FileKind,
    pub taken_at: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Encoded thumbnail (JPEG or PNG) and what kind it is.
    pub thumbnail: Option<Vec<u8>>,
    pub thumbnail_kind: ThumbnailKind,
}

/// A display name must be a plain file name: no directories, no `..`, no
/// control characters. It is only ever shown, never used as a path, but a name
/// like `../../etc/passwd` in a report or an export is a bug waiting to happen.
pub fn validate_file_name(name: &str) -> Result<(), ArtifactError> {
    let bad = |reason: &str| {
        Err(ArtifactError::InvalidFileName {
            name: name.to_owned(),
            reason: reason.to_owned(),
        })
    };
    if name.trim().is_empty() {
        return bad("it is empty");
    }
    if name.len() > 255 {
        return bad("it is longer than 255 bytes");
    }
    if name.contains('/') || name.contains('\\') {
        return bad("it must be a file name, not a path (contains / or \\)");
    }
    if name == "." || name == ".." || name.contains("..") {
        return bad("it must not contain `..`");
    }
    if name.chars().any(char::is_control) {
        return bad("it contains control characters");
    }
    if let Some(c) = name.chars().find(|c| is_bidi_control(*c)) {
        return bad(&format!(
            "it contains the invisible text-direction character U+{:04X}, which can make a name read as another (photo[U+202E]gpj.exe shows as photoexe.jpg)",
            c as u32
        ));
    }
    Ok(())
}

/// Unicode's bidirectional formatting characters (embeddings, overrides,
/// isolates, marks): they reorder how a name is shown.
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// Check size and type, then read what can be read. Errors only for input the
/// store refuses; a damaged or undecodable photo is not an error.
pub fn inspect(name: &str, bytes: &[u8]) -> Result<Inspection, ArtifactError> {
    validate_file_name(name)?;
    if bytes.is_empty() {
        return Err(ArtifactError::Empty(name.to_owned()));
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ArtifactError::TooLarge {
            name: name.to_owned(),
            size: bytes.len() as u64,
            limit: MAX_FILE_BYTES,
            limit_mib: MAX_FILE_BYTES / (1024 * 1024),
        });
    }
    let (mime, kind, decodable) = sniff(bytes).ok_or_else(|| ArtifactError::UnsupportedType {
        name: name.to_owned(),
        detected: describe_unknown(bytes),
    })?;
    if kind == FileKind::Document {
        return Ok(Inspection {
            mime,
            kind,
            taken_at: None,
            width: None,
            height: None,
            thumbnail: None,
            thumbnail_kind: ThumbnailKind::None,
        });
    }

    let exif = read_exif(bytes);
    let taken_at = exif.as_ref().and_then(exif_taken_at);
    let decoded = decodable.and_then(|format| decode(bytes, format));
    match decoded {
        Some(mut img) => {
            let (width, height) = (img.width(), img.height());
            upright(&mut img, exif.as_ref());
            let thumb = jpeg_within(&img, THUMB_EDGE, THUMB_QUALITY);
            Ok(Inspection {
                mime,
                kind,
                taken_at,
                width: Some(width),
                height: Some(height),
                thumbnail_kind: if thumb.is_some() {
                    ThumbnailKind::Generated
                } else {
                    ThumbnailKind::Placeholder
                },
                thumbnail: thumb.or_else(|| Some(placeholder_thumbnail())),
            })
        }
        None => Ok(Inspection {
            mime,
            kind,
            taken_at,
            width: None,
            height: None,
            thumbnail: Some(placeholder_thumbnail()),
            thumbnail_kind: ThumbnailKind::Placeholder,
        }),
    }
}

/// Identify the file from its leading bytes: (mime, kind, format we can decode).
fn sniff(bytes: &[u8]) -> Option<(&'static str, FileKind, Option<ImageFormat>)> {
    let img = FileKind::Image;
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some(("image/jpeg", img, Some(ImageFormat::Jpeg)));
    }
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(("image/png", img, Some(ImageFormat::Png)));
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some(("image/webp", img, Some(ImageFormat::WebP)));
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some(("image/gif", img, Some(ImageFormat::Gif)));
    }
    if bytes.starts_with(b"%PDF-") {
        return Some(("application/pdf", FileKind::Document, None));
    }
    // ISO base media (HEIF family): a `ftyp` box whose major brand names the codec.
    if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" {
        return match &bytes[8..12] {
            b"heic" | b"heix" | b"heim" | b"heis" | b"hevc" | b"hevx" => {
                Some(("image/heic", img, None))
            }
            b"mif1" | b"msf1" => Some(("image/heif", img, None)),
            b"avif" | b"avis" => Some(("image/avif", img, None)),
            _ => None,
        };
    }
    None
}

fn describe_unknown(bytes: &[u8]) -> String {
    if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" {
        let brand = String::from_utf8_lossy(&bytes[8..12]).into_owned();
        return format!("an ISO media file of brand `{brand}`, e.g. a video");
    }
    let head = &bytes[..bytes.len().min(512)];
    if std::str::from_utf8(head).is_ok() {
        return "looks like text".to_owned();
    }
    "unrecognized binary content".to_owned()
}

/// What decoding `bytes` would take at most (4 bytes a pixel), from the
/// dimensions its header declares; `None` when it is no image we decode.
pub fn decoded_bytes_estimate(bytes: &[u8]) -> Option<u64> {
    let (w, h) = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()?;
    Some(u64::from(w) * u64::from(h) * 4)
}

fn decode(bytes: &[u8], format: ImageFormat) -> Option<DynamicImage> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    // A 48-megapixel phone photo decodes to ~144 MB (RGB) or ~192 MB
    // (RGBA). A bigger one is a decompression bomb: it is kept as a file,
    // not decoded. With at most two decodes at once (desk::decode_permit)
    // the server stays under half a gigabyte whatever the clients send.
    let mut limits = Limits::default();
    limits.max_alloc = Some(192 * 1024 * 1024);
    limits.max_image_width = Some(20_000);
    limits.max_image_height = Some(20_000);
    reader.limits(limits);
    reader.decode().ok()
}

fn read_exif(bytes: &[u8]) -> Option<exif::Exif> {
    exif::Reader::new()
        .read_from_container(&mut Cursor::new(bytes))
        .ok()
}

/// Turns `img` the way its EXIF orientation says the camera was held.
fn upright(img: &mut DynamicImage, exif: Option<&exif::Exif>) {
    let orientation = exif
        .and_then(|e| e.get_field(exif::Tag::Orientation, exif::In::PRIMARY))
        .and_then(|f| f.value.get_uint(0))
        .and_then(|o| u8::try_from(o).ok())
        .and_then(image::metadata::Orientation::from_exif);
    if let Some(o) = orientation {
        img.apply_orientation(o);
    }
}

/// A stored photo decoded within the decoder's limits and turned upright;
/// `None` for a document or a photo that does not decode.
pub fn decode_photo(bytes: &[u8]) -> Option<DynamicImage> {
    let (_, _, format) = sniff(bytes)?;
    let mut img = decode(bytes, format?)?;
    upright(&mut img, read_exif(bytes).as_ref());
    Some(img)
}

/// `img` as a JPEG with its longer edge at most `max_edge` pixels (never
/// enlarged): gallery thumbnails and the photos on report pages.
pub fn jpeg_within(img: &DynamicImage, max_edge: u32, quality: u8) -> Option<Vec<u8>> {
    let fitted;
    let img = if img.width() > max_edge || img.height() > max_edge {
        fitted = img.thumbnail(max_edge, max_edge);
        &fitted
    } else {
        img
    };
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(img.to_rgb8())
        .write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(
            &mut out, quality,
        ))
        .ok()
        .map(|_| out.into_inner())
}

/// A neutral grey tile with a darker frame: "there is a photo here, it just
/// has no preview". The same bytes every time, so it is stored once.
pub fn placeholder_thumbnail() -> Vec<u8> {
    let edge = 160u32;
    let img = image::RgbImage::from_fn(edge, edge, |x, y| {
        let frame = x < 6 || y < 6 || x >= edge - 6 || y >= edge - 6;
        let lens = {
            let (dx, dy) = (x as i64 - 80, y as i64 - 84);
            let r2 = dx * dx + dy * dy;
            (22 * 22..=30 * 30).contains(&r2)
        };
        if frame || lens {
            image::Rgb([120, 124, 130])
        } else {
            image::Rgb([214, 217, 222])
        }
    });
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(img)
        .write_to(&mut out, ImageFormat::Png)
        .expect("encoding a small RGB image to PNG in memory cannot fail");
    out.into_inner()
}

/// EXIF DateTimeOriginal (falling back to DateTime), with its offset when the
/// camera recorded one; otherwise the camera's local time without a zone.
fn exif_taken_at(exif: &exif::Exif) -> Option<String> {
    let field = exif
        .get_field(exif::Tag::DateTimeOriginal, exif::In::PRIMARY)
        .or_else(|| exif.get_field(exif::Tag::DateTime, exif::In::PRIMARY))?;
    let exif::Value::Ascii(ref parts) = field.value else {
        return None;
    };
    let mut dt = exif::DateTime::from_ascii(parts.first()?).ok()?;
    if let Some(off) = exif
        .get_field(exif::Tag::OffsetTimeOriginal, exif::In::PRIMARY)
        .and_then(|f| match &f.value {
            exif::Value::Ascii(v) => v.first().cloned(),
            _ => None,
        })
    {
        let _ = dt.parse_offset(&off);
    }
    let base = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second
    );
    Some(match dt.offset {
        Some(min) => {
            let sign = if min < 0 { '-' } else { '+' };
            let m = min.unsigned_abs();
            format!("{base}{sign}{:02}:{:02}", m / 60, m % 60)
        }
        None => base,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_pixel(w, h, image::Rgb([200, 30, 30]));
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgb8(img)
            .write_to(&mut out, ImageFormat::Png)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn png_gets_dimensions_and_a_real_thumbnail() {
        let i = inspect("a.png", &png(800, 600)).unwrap();
        assert_eq!(i.mime, "image/png");
        assert_eq!((i.width, i.height), (Some(800), Some(600)));
        assert_eq!(i.thumbnail_kind, ThumbnailKind::Generated);
        let t = image::load_from_memory(&i.thumbnail.unwrap()).unwrap();
        assert_eq!((t.width(), t.height()), (320, 240));
    }

    #[test]
    fn truncated_jpeg_is_kept_with_a_placeholder() {
        let i = inspect("broken.jpg", &[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, b'J']).unwrap();
        assert_eq!(i.mime, "image/jpeg");
        assert_eq!(i.thumbnail_kind, ThumbnailKind::Placeholder);
        assert_eq!(i.thumbnail.unwrap(), placeholder_thumbnail());
    }

    #[test]
    fn refuses_empty_text_video_and_path_names() {
        assert!(matches!(
            inspect("e.jpg", b""),
            Err(ArtifactError::Empty(_))
        ));
        let err = inspect("notes.txt", b"fuse ok").unwrap_err();
        assert!(err.to_string().contains("looks like text"), "{err}");
        let mp4 = b"\0\0\0\x18ftypmp42\0\0\0\0mp42isom";
        let err = inspect("clip.mp4", mp4).unwrap_err();
        assert!(err.to_string().contains("mp42"), "{err}");
        for name in ["../x.jpg", "a/b.jpg", "..", "a\\b.png", ""] {
            assert!(
                matches!(
                    inspect(name, &png(2, 2)),
                    Err(ArtifactError::InvalidFileName { .. })
                ),
                "{name:?} must be refused"
            );
        }
    }

    #[test]
    fn too_large_names_the_limit() {
        let big = vec![0xFFu8; MAX_FILE_BYTES as usize + 1];
        let err = inspect("big.jpg", &big).unwrap_err();
        assert!(err.to_string().contains("32 MiB"), "{err}");
    }
}
