//! The content-addressed store: `<root>/sha256/ab/cdef…`, one file per distinct
//! content, written atomically and verified on every read.

use std::fs::{self, File};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use ts_rs::TS;

use sha2::{Digest, Sha256};

use super::ArtifactError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum BlobStatus {
    Ok,
    Missing,
    Corrupt,
}

#[derive(Debug, Clone)]
pub struct BlobStore {
    root: PathBuf,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ArtifactError + '_ {
    move |source| ArtifactError::Io {
        path: path.display().to_string(),
        source,
    }
}

impl BlobStore {
    /// Open (and create) the store under `root`.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self, ArtifactError> {
        let root = root.into();
        for dir in [root.join("sha256"), root.join("tmp")] {
            fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        }
        Ok(Self { root })
    }

    pub fn path_of(&self, sha256: &str) -> PathBuf {
        let (prefix, rest) = sha256.split_at(2.min(sha256.len()));
        self.root.join("sha256").join(prefix).join(rest)
    }

    /// Store `bytes` and return their hash. If a blob with that hash already
    /// exists and is intact nothing is written; if it exists but was damaged,
    /// it is replaced, so adding the same photo again repairs the store.
    pub fn put(&self, bytes: &[u8]) -> Result<String, ArtifactError> {
        let sha = sha256_hex(bytes);
        if self.status(&sha)? == BlobStatus::Ok {
            return Ok(sha);
        }
        let dest = self.path_of(&sha);
        let dir = dest.parent().expect("blob paths have a parent");
        fs::create_dir_all(dir).map_err(io_err(dir))?;
        let tmp_dir = self.root.join("tmp");
        let mut tmp = tempfile::NamedTempFile::new_in(&tmp_dir).map_err(io_err(&tmp_dir))?;
        tmp.write_all(bytes).map_err(io_err(tmp.path()))?;
        tmp.as_file().sync_all().map_err(io_err(&dest))?;
        tmp.persist(&dest).map_err(|e| ArtifactError::Io {
            path: dest.display().to_string(),
            source: e.error,
        })?;
        sync_dir(dir)?;
        Ok(sha)
    }

    /// Read a blob, verifying its hash: only intact bytes are ever returned.
    pub fn get(&self, sha256: &str) -> Result<Vec<u8>, ArtifactError> {
        let path = self.path_of(sha256);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(ArtifactError::Missing {
                    sha256: sha256.to_owned(),
                })
            }
            Err(e) => return Err(io_err(&path)(e)),
        };
        if sha256_hex(&bytes) != sha256 {
            return Err(ArtifactError::Corrupt {
                sha256: sha256.to_owned(),
            });
        }
        Ok(bytes)
    }

    pub fn status(&self, sha256: &str) -> Result<BlobStatus, ArtifactError> {
        match self.get(sha256) {
            Ok(_) => Ok(BlobStatus::Ok),
            Err(ArtifactError::Missing { .. }) => Ok(BlobStatus::Missing),
            Err(ArtifactError::Corrupt { .. }) => Ok(BlobStatus::Corrupt),
            Err(e) => Err(e),
        }
    }

    /// Move blobs aside (into `tmp/`) inside the write transaction that proved
    /// nothing references them; [`Trash::empty`] deletes them after its
    /// commit, [`Trash::restore`] puts them back if it failed.
    pub fn trash(&self, hashes: &[String]) -> Result<Trash, ArtifactError> {
        let mut trash = Trash { moved: Vec::new() };
        for sha in hashes {
            let from = self.path_of(sha);
            let to = self
                .root
                .join("tmp")
                .join(format!("purged-{}", uuid::Uuid::new_v4()));
            match fs::rename(&from, &to) {
                Ok(()) => trash.moved.push((from, to)),
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => {
                    trash.restore();
                    return Err(io_err(&from)(e));
                }
            }
        }
        Ok(trash)
    }

    /// The blobs whose file was last written before `cutoff` (sweep candidates).
    pub fn blobs_older_than(&self, cutoff: SystemTime) -> Result<Vec<String>, ArtifactError> {
        let root = self.root.join("sha256");
        let mut out = Vec::new();
        for prefix in fs::read_dir(&root).map_err(io_err(&root))? {
            let prefix = prefix.map_err(io_err(&root))?;
            let prefix_name = prefix.file_name().to_string_lossy().into_owned();
            if prefix_name.len() != 2 || !prefix.path().is_dir() {
                continue;
            }
            let dir = prefix.path();
            for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
                let entry = entry.map_err(io_err(&dir))?;
                let sha = format!("{prefix_name}{}", entry.file_name().to_string_lossy());
                if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                    continue;
                }
                let old = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t < cutoff);
                if old {
                    out.push(sha);
                }
            }
        }
        Ok(out)
    }

    /// Delete temp files (a crashed write, a purge's trash) older than
    /// `cutoff`; returns how many went.
    pub fn sweep_tmp(&self, cutoff: SystemTime) -> Result<usize, ArtifactError> {
        let dir = self.root.join("tmp");
        let mut removed = 0;
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
            let entry = entry.map_err(io_err(&dir))?;
            let old = entry
                .metadata()
                .is_ok_and(|m| m.is_file() && m.modified().is_ok_and(|t| t < cutoff));
            if old && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Remove a blob. Only for an explicit purge, after the caller made sure no
    /// row refers to it any more.
    pub fn remove(&self, sha256: &str) -> Result<(), ArtifactError> {
        let path = self.path_of(sha256);
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_err(&path)(e)),
        }
    }
}

/// Blobs a purge or sweep moved aside, waiting for its transaction's outcome.
#[derive(Debug)]
#[must_use = "empty the trash after the commit, or restore it"]
pub struct Trash {
    moved: Vec<(PathBuf, PathBuf)>,
}

impl Trash {
    /// The transaction committed: delete the files. Returns how many.
    pub fn empty(self) -> usize {
        let mut n = 0;
        for (_, to) in &self.moved {
            if fs::remove_file(to).is_ok() {
                n += 1;
            }
        }
        n
    }

    /// The transaction failed: put every blob back where it was.
    pub fn restore(&self) {
        for (from, to) in &self.moved {
            if let Err(e) = fs::rename(to, from) {
                tracing::error!("could not restore blob {}: {e}", from.display());
            }
        }
    }
}

/// Make a rename durable: fsync the directory holding the new entry.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<(), ArtifactError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}

/// Windows cannot open a directory as a file; NTFS journals the rename itself.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<(), ArtifactError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_get_and_detect_damage() {
        let dir = tempfile::tempdir().unwrap();
        let store = BlobStore::open(dir.path()).unwrap();
        let sha = store.put(b"hello photo").unwrap();
        assert_eq!(store.get(&sha).unwrap(), b"hello photo");
        assert_eq!(
            store.put(b"hello photo").unwrap(),
            sha,
            "same content, same blob"
        );

        fs::write(store.path_of(&sha), b"tampered").unwrap();
        assert!(matches!(
            store.get(&sha),
            Err(ArtifactError::Corrupt { .. })
        ));
        store.put(b"hello photo").unwrap();
        assert_eq!(
            store.status(&sha).unwrap(),
            BlobStatus::Ok,
            "re-adding repairs"
        );

        store.remove(&sha).unwrap();
        assert_eq!(store.status(&sha).unwrap(), BlobStatus::Missing);
    }
}
