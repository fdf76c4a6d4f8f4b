//! A photo's caption and condition tag, and marked-up copies: the technician
//! draws arrows, circles and a short text over a photo in the app, which
//! sends the drawing as a PNG; it is stored as a new artifact linked to the
//! photo, whose own bytes and hash never change.

use super::{invalid, Desk, DeskError, Result, MAX_CAPTION_CHARS};
use crate::artifacts::ThumbnailKind;
use crate::store::{Annotation, Artifact, PhotoCondition, SessionStatus};

/// A caption as a person typed it: trimmed, empty meaning none, at most
/// [`MAX_CAPTION_CHARS`], and one line (the report lists a photo per line,
/// so a line break would cut its entry in two).
pub(crate) fn check_caption(caption: Option<String>) -> Result<Option<String>> {
    let Some(c) = caption else { return Ok(None) };
    let c = c.trim();
    let chars = c.chars().count();
    if chars > MAX_CAPTION_CHARS {
        return Err(invalid(
            "caption",
            format!("is {chars} characters long; at most {MAX_CAPTION_CHARS}"),
        ));
    }
    if let Some(bad) = c.chars().find(|ch| ch.is_control()) {
        return Err(invalid(
            "caption",
            format!(
                "must be one line of text; it contains the control character U+{:04X}",
                bad as u32
            ),
        ));
    }
    Ok((!c.is_empty()).then(|| c.to_owned()))
}

impl Desk {
    /// Sets a photo's caption (`Some("")` clears it) and/or condition tag
    /// (`Some(None)` clears it); a field left `None` keeps its value.
    pub async fn annotate_artifact(
        &self,
        session_id: &str,
        artifact_id: &str,
        caption: Option<String>,
        condition: Option<Option<PhotoCondition>>,
    ) -> Result<Artifact> {
        let annotation = Annotation {
            caption: match caption {
                Some(c) => Some(check_caption(Some(c))?),
                None => None,
            },
            condition,
        };
        if annotation.caption.is_none() && annotation.condition.is_none() {
            return Err(invalid(
                "caption",
                "give a caption or a condition to change (neither was given)",
            ));
        }
        Ok(self
            .store()
            .annotate_artifact(session_id, artifact_id, &annotation)
            .await?)
    }

    /// Stores `png` (the photo with a drawing over it) as a new artifact of
    /// the session linked to `original_id`, with `caption` (else the
    /// original's) and the original's condition tag.
    pub async fn markup_artifact(
        &self,
        session_id: &str,
        original_id: &str,
        png: Vec<u8>,
        caption: Option<String>,
    ) -> Result<Artifact> {
        let caption = check_caption(caption)?;
        // Refuse what the transaction would refuse before any blob is written.
        let session = self.store().session(session_id).await?;
        if session.status == SessionStatus::Finalized {
            return Err(crate::store::StoreError::Finalized {
                ro_number: session.ro_number,
            }
            .into());
        }
        let photos = self.store().artifacts(Some(session_id)).await?;
        let original = photos
            .iter()
            .find(|a| a.id == original_id)
            .cloned()
            .ok_or_else(|| crate::store::StoreError::NotFound {
                what: "original_id",
                id: format!("{original_id} (a photo of session {session_id})"),
            })?;
        if !original.mime.starts_with("image/") {
            return Err(invalid(
                "original_id",
                format!(
                    "{} is not a photo, so it cannot be marked up",
                    original.file_name
                ),
            ));
        }
        if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err(invalid(
                "data_base64",
                "is not a PNG image; a marked-up photo is saved as PNG",
            ));
        }
        let name = copy_name(&original.file_name, |n| {
            photos.iter().any(|a| a.file_name == n)
        });
        let mut new = self
            .prepare_artifact(name, png, caption.or(original.caption.clone()))
            .await?;
        if new.thumbnail != ThumbnailKind::Generated {
            if let Some(pin) = &new.pin {
                let _ = self.store().unpin_blobs(pin).await;
            }
            return Err(invalid(
                "data_base64",
                "is a PNG that does not decode; nothing was stored",
            ));
        }
        new.condition = original.condition;
        match self
            .store()
            .add_marked_up_copy(session_id, original_id, &new)
            .await
        {
            Ok(a) => Ok(a),
            Err(e) => {
                if let Some(pin) = &new.pin {
                    let _ = self.store().unpin_blobs(pin).await;
                }
                Err(DeskError::from(e))
            }
        }
    }
}

/// "burner.jpg" → "burner-markup.png", then "-markup-2.png"... so the report,
/// which names photos by file, tells each copy apart.
fn copy_name(original: &str, taken: impl Fn(&str) -> bool) -> String {
    let stem = match original.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => original,
    };
    let first = format!("{stem}-markup.png");
    if !taken(&first) {
        return first;
    }
    (2..)
        .map(|n| format!("{stem}-markup-{n}.png"))
        .find(|n| !taken(n))
        .unwrap_or(first)
}

/// The photo's entry in a report after its file name: caption, condition
/// and, for a marked-up copy, the photo it marks up. Plain words in one line
/// (the report's photo line is "name: this (taken)").
pub(crate) fn report_caption(a: &Artifact, session_photos: &[Artifact]) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(c) = &a.caption {
        parts.push(c.clone());
    }
    if let Some(c) = a.condition {
        parts.push(format!("Condition: {}", c.report_label()));
    }
    if let Some(from) = &a.derived_from {
        let name = session_photos
            .iter()
            .find(|o| &o.id == from)
            .map_or("another photo", |o| o.file_name.as_str());
        parts.push(format!("marked-up copy of {name}"));
    }
    (!parts.is_empty()).then(|| parts.join(" — "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_names_do_not_collide() {
        assert_eq!(copy_name("burner.jpg", |_| false), "burner-markup.png");
        assert_eq!(
            copy_name("burner.jpg", |n| n == "burner-markup.png"),
            "burner-markup-2.png"
        );
        assert_eq!(copy_name(".hidden", |_| false), ".hidden-markup.png");
    }

    #[test]
    fn captions_are_one_trimmed_line() {
        assert_eq!(check_caption(Some("  ".into())).unwrap(), None);
        assert_eq!(
            check_caption(Some(" tube ".into())).unwrap().as_deref(),
            Some("tube")
        );
        assert!(check_caption(Some("a\nb".into())).is_err());
        assert!(check_caption(Some("x".repeat(MAX_CAPTION_CHARS + 1))).is_err());
    }
}
