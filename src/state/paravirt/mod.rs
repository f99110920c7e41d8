//! Metadata boundaries: virtio-net header, Xen netif flags, DPDK mbuf flags and
//! AF_PACKET status, both directions, with untrusted-guest checks.
