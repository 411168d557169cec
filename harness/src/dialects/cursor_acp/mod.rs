//! Cursor's server mode (`cursor-agent acp`): the Agent Client Protocol over stdio.
