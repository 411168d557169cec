//! Cursor's print mode (`cursor-agent -p`): stream-json, json and text, one way.
