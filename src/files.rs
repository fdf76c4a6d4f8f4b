//! Reading a file a person named, bounded: only a regular file is read (a
//! FIFO, a device like `/dev/zero` or `/dev/stdin`, a directory is refused
//! before a byte is read, and opening never blocks), and never more than the
//! limit for its kind, which the error names. Every command that takes a
//! file (artifacts, billing payloads and imports, datasets, chat scripts,
//! knowledge documents) reads through [`read_limited`].
//!
//! It is blocking I/O: async callers run it in `spawn_blocking`.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why a file was not read. The message names the file, and the limit when
/// that was the reason.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("cannot read {path}: it is {kind}, not a regular file")]
    NotRegular { path: String, kind: &'static str },
    #[error("{path} is {size} bytes; {what} is at most {limit} bytes ({limit_mib} MiB)")]
    TooLarge {
        path: String,
        what: &'static str,
        size: u64,
        limit: u64,
        limit_mib: u64,
    },
}

impl ReadError {
    /// The api error code: `too_large` or `unreadable_path`.
    pub fn code(&self) -> &'static str {
        match self {
            ReadError::Unreadable { .. } | ReadError::NotRegular { .. } => "unreadable_path",
            ReadError::TooLarge { .. } => "too_large",
        }
    }
}

/// Read a regular file of at most `limit` bytes; `what` names its kind in
/// the error ("a billing payload", "a chat script").
pub fn read_limited(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    let shown = path.display().to_string();
    let unreadable = |e: std::io::Error| ReadError::Unreadable {
        path: shown.clone(),
        reason: match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_owned(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
            _ => e.to_string(),
        },
    };
    // Refuse what is not a file before opening it: opening a FIFO for
    // reading waits for a writer.
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: shown.clone(),
            kind: kind_of(&meta),
        });
    }
    let file = open_nonblocking(path).map_err(unreadable)?;
    // The path may have been swapped since: check what was opened.
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: shown.clone(),
            kind: kind_of(&meta),
        });
    }
    let too_large = |size: u64| ReadError::TooLarge {
        path: shown.clone(),
        what,
        size,
        limit,
        limit_mib: limit / (1024 * 1024),
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    // A file that grows while read stops at the limit.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_limited`] as UTF-8 text; invalid UTF-8 is refused with the line
/// and byte where it starts.
pub fn read_text_limited(path: &Path, limit: u64, what: &'static str) -> Result<String, ReadError> {
    let bytes = read_limited(path, limit, what)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|b| **b == b'\n').count() + 1;
        ReadError::Unreadable {
            path: path.display().to_string(),
            reason: format!("it is not UTF-8 text (line {line}, byte {at})"),
        }
    })
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_within_the_limit_and_names_it_beyond() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        std::fs::write(&p, b"[1,2,3]").unwrap();
        assert_eq!(read_limited(&p, 7, "a test file").unwrap(), b"[1,2,3]");
        let e = read_limited(&p, 6, "a test file").unwrap_err();
        assert_eq!(e.code(), "too_large");
        assert!(
            e.to_string().contains("a test file is at most 6 bytes"),
            "{e}"
        );
        let e = read_limited(dir.path(), 6, "a test file").unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_without_blocking() {
        let e = read_limited(Path::new("/dev/zero"), 1 << 20, "a test file").unwrap_err();
        assert!(e.to_string().contains("a device"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        #[allow(unsafe_code)]
        let made = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
        assert_eq!(made, 0);
        let e = read_limited(&fifo, 1 << 20, "a test file").unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
    }
}
