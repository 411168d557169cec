//! The models the real CLI offers, as `models` and `--list-models` print them and as
//! its "Cannot use this model" error lists them.

/// Each model's id (what `--model` takes) and display name, in the CLI's order.
pub const MODELS: &[(&str, &str)] = &[
    ("auto", "Auto (default)"),
    ("sonnet-4.5", "Claude 4.5 Sonnet"),
    ("sonnet-4.5-thinking", "Claude 4.5 Sonnet (Thinking)"),
    ("opus-4.1", "Claude 4.1 Opus"),
    ("gpt-5", "GPT-5"),
    ("grok", "Grok"),
];

/// The ids of [`MODELS`], in order.
pub fn ids() -> impl Iterator<Item = &'static str> {
    MODELS.iter().map(|(id, _)| *id)
}
