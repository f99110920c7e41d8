//! Policy presets for the Linux TUN/TAP `IFF_VNET_HDR` boundary, beside the
//! vhost ones in `to_meta.rs`.
//!
//! Who is "the device": the virtio spec's device writes receive headers
//! (`DATA_VALID` allowed), its driver writes transmit headers. A TUN user is
//! in the device's seat for what it *reads*: the kernel's `tun_put_user`
//! fills the header with `virtio_net_hdr_from_skb(.., has_data_valid = true)`,
//! as a host does for a guest's receive queue. What the user *writes* is read
//! by `tun_get_user` with `virtio_net_hdr_to_skb` (driver to device, where
//! `DATA_VALID` means nothing): see `Direction::FromDriver`.

use super::to_meta::{DataValidPolicy, Direction, HdrLenRule, SeedPolicy, VirtioPolicy};
use crate::wire::LinkType;

impl VirtioPolicy {
    /// Reading an L3 TUN (`IFF_TUN | IFF_NO_PI | IFF_VNET_HDR`): raw IP
    /// frames, the local kernel wrote the header (it is the device here).
    ///
    /// `DATA_VALID` is the kernel's `CHECKSUM_UNNECESSARY` and is trusted as
    /// level 0; `hdr_len` is a hint (`tun_put_user` writes `skb_headlen`,
    /// which may exceed the headers); the seed is verified, so a header that
    /// does not match its packet is refused rather than forwarded.
    pub const TUN_READ: VirtioPolicy = VirtioPolicy {
        direction: Direction::FromDevice,
        link: LinkType::RawIp,
        data_valid: DataValidPolicy::TrustAsUnnecessary,
        hdr_len: HdrLenRule::Hint,
        seed: SeedPolicy::Verify,
        rsc_ext: false,
    };

    /// Reading a TAP (`IFF_TAP | IFF_VNET_HDR`): [`Self::TUN_READ`] with
    /// Ethernet frames.
    pub const TAP_READ: VirtioPolicy = VirtioPolicy {
        link: LinkType::Ethernet,
        ..VirtioPolicy::TUN_READ
    };
}
