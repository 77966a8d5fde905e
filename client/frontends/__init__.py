"""The front ends, side by side (none imports another but ``screen``, the full screen's drawing they share)."""
