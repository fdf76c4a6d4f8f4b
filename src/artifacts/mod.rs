//! Photos and files that never vanish: a content-addressed blob store plus the
//! inspection (type, EXIF time, thumbnail) done when a file is added.
//!
//! Invariant: a blob is durable (temp file, fsync, rename, fsync of the
//! directory) before any database row may point at it, and every read checks
//! the bytes against their sha256, so a changed or missing blob is reported,
//! never served.

mod blobs;
mod inspect;

pub use blobs::{sha256_hex, BlobStatus, BlobStore, Trash};
pub use inspect::{
    decode_photo, decoded_bytes_estimate, inspect, jpeg_within, validate_file_name, FileKind,
    Inspection, ThumbnailKind, MAX_FILE_BYTES,
};

#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    #[error("{0} is empty (0 bytes): nothing to store")]
    Empty(String),
    #[error("{name} is {size} bytes; the limit is {limit} bytes ({limit_mib} MiB)")]
    TooLarge {
        name: String,
        size: u64,
        limit: u64,
        limit_mib: u64,
    },
    #[error("{name} is not a supported file type ({detected}); accepted: JPEG, PNG, HEIC/HEIF, WebP, GIF, AVIF photos and PDF documents")]
    UnsupportedType { name: String, detected: String },
    #[error("cannot read {path}: {reason}")]
    UnreadablePath { path: String, reason: String },
    #[error("invalid file name \"{name}\": {reason}")]
    InvalidFileName { name: String, reason: String },
    #[error("blob {sha256} is missing from the artifact store")]
    Missing { sha256: String },
    #[error("blob {sha256} is corrupt: its content no longer matches its hash")]
    Corrupt { sha256: String },
    #[error("artifact store I/O error at {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}
