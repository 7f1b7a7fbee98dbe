// Placeholder until this target is written.
