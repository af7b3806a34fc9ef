//! Vendored data sets, verified on load.
//!
//! Every data set the workspace reads lives in a folder `data/<name>/` of
//! the repository with its licence text, a `SOURCE.md` (origin, the version it
//! was taken from, licence) and a `SHA256SUMS` file in the format `sha256sum`
//! writes (`<64 hex digits>  <relative path>` per line). [`Dataset::open`]
//! reads the sums; [`Dataset::read`] returns a file's bytes only when its
//! SHA-256 matches, and transparently decompresses `.gz` files (the checksum
//! is of the file as stored). A missing file, a file not listed, or a
//! mismatch is an [`Error::Data`] naming the file and its expected SHA-256.
//!
//! ```
//! # fn main() -> mlcore::Result<()> {
//! use mlcore::data::Dataset;
//! let dir = std::env::temp_dir().join(format!("mlcore-data-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(dir.join("a.txt"), b"abc").unwrap();
//! std::fs::write(
//!     dir.join("SHA256SUMS"),
//!     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  a.txt\n",
//! )
//! .unwrap();
//! let ds = Dataset::open(&dir)?;
//! assert_eq!(ds.read_to_string("a.txt")?, "abc");
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok(())
//! # }
//! ```

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The `data/` folder of this repository, as seen from the crates of the
/// workspace (`crates/mlcore/../../data`). It exists in a checkout of the
/// repository, not in a crate downloaded from a registry: there, point
/// [`Dataset::open`] at your own copy.
pub fn workspace_data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// A vendored data set: a folder and the SHA-256 of each of its files.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    dir: PathBuf,
    sums: Vec<(String, String)>,
}

fn data_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::Data {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

/// The lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Dataset {
    /// Opens the data set in `dir` by reading its `SHA256SUMS`.
    ///
    /// # Errors
    /// [`Error::Data`] when the folder or its `SHA256SUMS` is missing or a
    /// line of it is not `<64 hex digits>  <path>`.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        let sums_path = dir.join("SHA256SUMS");
        let text = std::fs::read_to_string(&sums_path).map_err(|e| {
            data_error(
                &sums_path,
                format!("cannot read the data set's checksums: {e}"),
            )
        })?;
        let mut sums = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let parsed = line
                .split_once(char::is_whitespace)
                .and_then(|(hash, rest)| {
                    let name = rest.trim_start().trim_start_matches('*');
                    let ok = hash.len() == 64
                        && hash.bytes().all(|b| b.is_ascii_hexdigit())
                        && !name.is_empty();
                    ok.then(|| (name.to_string(), hash.to_ascii_lowercase()))
                });
            match parsed {
                Some(entry) => sums.push(entry),
                None => {
                    return Err(data_error(
                        &sums_path,
                        format!("line {} is not `<sha256>  <file>`", i + 1),
                    ));
                }
            }
        }
        Ok(Dataset { dir, sums })
    }

    /// The folder of the data set.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The files listed in `SHA256SUMS`, in its order.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.sums.iter().map(|(name, _)| name.as_str())
    }

    /// The expected SHA-256 of `file`, if it is listed.
    pub fn expected_sha256(&self, file: &str) -> Option<&str> {
        self.sums
            .iter()
            .find(|(name, _)| name == file)
            .map(|(_, hash)| hash.as_str())
    }

    /// The verified bytes of `file` (a path relative to the data set),
    /// decompressed when its name ends in `.gz`.
    ///
    /// # Errors
    /// [`Error::Data`] naming the file and its expected SHA-256 when the file
    /// is not listed, cannot be read, has another SHA-256, or is not valid gzip.
    pub fn read(&self, file: &str) -> Result<Vec<u8>> {
        let path = self.dir.join(file);
        let Some(expected) = self.expected_sha256(file) else {
            return Err(data_error(&path, "the file is not listed in SHA256SUMS"));
        };
        let bytes = std::fs::read(&path).map_err(|e| {
            data_error(
                &path,
                format!("cannot read the file (expected SHA-256 {expected}): {e}"),
            )
        })?;
        let actual = sha256_hex(&bytes);
        if actual != expected {
            return Err(data_error(
                &path,
                format!("SHA-256 is {actual}, expected {expected}"),
            ));
        }
        if file.ends_with(".gz") {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(bytes.as_slice())
                .read_to_end(&mut out)
                .map_err(|e| data_error(&path, format!("not valid gzip: {e}")))?;
            Ok(out)
        } else {
            Ok(bytes)
        }
    }

    /// [`Dataset::read`] as UTF-8 text.
    ///
    /// # Errors
    /// As [`Dataset::read`], and [`Error::Data`] when the content is not UTF-8.
    pub fn read_to_string(&self, file: &str) -> Result<String> {
        let bytes = self.read(file)?;
        String::from_utf8(bytes)
            .map_err(|e| data_error(&self.dir.join(file), format!("not UTF-8: {e}")))
    }

    /// Verifies every listed file (for a test or a `--check` step).
    ///
    /// # Errors
    /// The first file's [`Error::Data`].
    pub fn verify_all(&self) -> Result<()> {
        self.sums
            .iter()
            .try_for_each(|(name, _)| self.read(name).map(drop))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_the_fips_180_vectors() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mlcore-data-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn missing_mismatched_and_unlisted_files_are_errors_naming_the_file() {
        let dir = scratch("errors");
        assert!(matches!(Dataset::open(&dir), Err(Error::Data { .. })));
        let abc = sha256_hex(b"abc");
        std::fs::write(
            dir.join("SHA256SUMS"),
            format!("{abc}  a.txt\n{abc}  gone.txt\n"),
        )
        .unwrap();
        std::fs::write(dir.join("a.txt"), b"abd").unwrap();
        std::fs::write(dir.join("extra.txt"), b"abc").unwrap();
        let ds = Dataset::open(&dir).unwrap();
        let msg = |r: Result<Vec<u8>>| match r {
            Err(Error::Data { path, reason }) => format!("{path}: {reason}"),
            other => panic!("expected a data error, got {other:?}"),
        };
        let m = msg(ds.read("a.txt"));
        assert!(m.contains("a.txt") && m.contains(&abc), "{m}");
        let m = msg(ds.read("gone.txt"));
        assert!(m.contains("gone.txt") && m.contains(&abc), "{m}");
        let m = msg(ds.read("extra.txt"));
        assert!(m.contains("not listed"), "{m}");
        std::fs::write(dir.join("SHA256SUMS"), "xyz  a.txt\n").unwrap();
        assert!(matches!(Dataset::open(&dir), Err(Error::Data { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn gzip_files_are_verified_as_stored_and_read_decompressed() {
        use std::io::Write;
        let dir = scratch("gzip");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(b"x,y\n1,2\n").unwrap();
        let gz = enc.finish().unwrap();
        std::fs::write(dir.join("t.csv.gz"), &gz).unwrap();
        std::fs::write(
            dir.join("SHA256SUMS"),
            format!("{}  t.csv.gz\n", sha256_hex(&gz)),
        )
        .unwrap();
        let ds = Dataset::open(&dir).unwrap();
        assert_eq!(ds.read_to_string("t.csv.gz").unwrap(), "x,y\n1,2\n");
        ds.verify_all().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
