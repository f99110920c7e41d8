//! Transmit side: device features, checksum/segmentation decisions, GSO and
//! transmit batch planning. Uses every other room.
#![forbid(unsafe_code)]
