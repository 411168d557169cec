//! The models the real CLI offers, as `models` and `--list-models` print them and as
//! its "Cannot use this model" error lists them.
//!
//! The list is the one of the real CLI's `models` output in the project's notes on
//! the real CLI (`auto`, `composer-1`, `sonnet-4.5`, `gpt-5`), with the ids that the
//! real CLI's own "Cannot use this model: ... Available models: ..." error is seen to
//! list beside them (`sonnet-4.5-thinking`, `opus-4.1`, `grok`), in an order that
//! agrees with both.

/// Each model's id (what `--model` takes) and display name, in the CLI's order.
pub const MODELS: &[(&str, &str)] = &[
    ("auto", "Auto"),
    ("composer-1", "Composer 1"),
    ("sonnet-4.5", "Claude 4.5 Sonnet"),
    ("sonnet-4.5-thinking", "Claude 4.5 Sonnet (Thinking)"),
    ("gpt-5", "GPT-5"),
    ("opus-4.1", "Claude 4.1 Opus"),
    ("grok", "Grok"),
];

/// The model the CLI uses when `--model` is not given.
pub const DEFAULT: &str = "auto";

/// The first line of the `models` listing, which programs look for.
pub const LISTING_HEADER: &str = "Available models";

/// The last line of the `models` listing.
pub const LISTING_TIP: &str = "Tip: use --model <id> (or /model in interactive mode) to switch.";

/// The ids of [`MODELS`], in order.
pub fn ids() -> impl Iterator<Item = &'static str> {
    MODELS.iter().map(|(id, _)| *id)
}

/// The display name of the model `id` ("Claude 4.5 Sonnet" for `sonnet-4.5`), or
/// `None` when the CLI does not offer it.
pub fn name(id: &str) -> Option<&'static str> {
    MODELS
        .iter()
        .find(|(known, _)| *known == id)
        .map(|(_, name)| *name)
}

/// The id of the model a run uses: `requested` (what `--model` said) when the CLI
/// offers it, else [`DEFAULT`].
pub fn current(requested: Option<&str>) -> &'static str {
    requested
        .and_then(|id| MODELS.iter().find(|(known, _)| *known == id))
        .map_or(DEFAULT, |(id, _)| *id)
}

/// The `models` (and `--list-models`) output: the header, a blank line, one
/// `id - Name` line a model with the `current` one marked `  (current)`, a blank
/// line, and the tip.
///
/// ```
/// let listing = harness::models::listing("auto");
/// assert!(listing.starts_with("Available models\n\nauto - Auto  (current)\ncomposer-1 - Composer 1\n"));
/// assert!(listing.ends_with("\n\nTip: use --model <id> (or /model in interactive mode) to switch.\n"));
/// ```
pub fn listing(current: &str) -> String {
    let mut text = format!("{LISTING_HEADER}\n\n");
    for (id, name) in MODELS {
        text.push_str(&format!("{id} - {name}"));
        if *id == current {
            text.push_str("  (current)");
        }
        text.push('\n');
    }
    text.push_str(&format!("\n{LISTING_TIP}\n"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_model_is_the_requested_one_when_known() {
        assert_eq!(current(None), "auto");
        assert_eq!(current(Some("gpt-5")), "gpt-5");
        assert_eq!(current(Some("gpt-9")), "auto");
        assert_eq!(name("sonnet-4.5"), Some("Claude 4.5 Sonnet"));
        assert_eq!(name("gpt-9"), None);
    }

    #[test]
    fn the_listing_marks_exactly_the_current_model() {
        let listing = listing("gpt-5");
        let marked: Vec<&str> = listing.lines().filter(|l| l.ends_with("  (current)")).collect();
        assert_eq!(marked, ["gpt-5 - GPT-5  (current)"]);
        assert_eq!(
            listing.lines().filter(|l| l.contains(" - ")).count(),
            MODELS.len()
        );
    }
}
