//! Device features: intersection of stacked devices, fix-up rules, bridges,
//! and the 2005 bridge that advertised nothing.
use netoffload::tx::Features;
use netoffload::wire::Net;
use proptest::prelude::*;

fn any_features() -> impl Strategy<Value = Features> {
    any::<u32>().prop_map(Features::from_bits_truncate)
}

/// What a device can checksum, written out from the NETIF_F_* definitions.
fn can(f: Features, net: Net) -> bool {
    f.contains(Features::HW_CSUM)
        || match net {
            Net::Ipv4 => f.contains(Features::IP_CSUM),
            Net::Ipv6 => f.contains(Features::IPV6_CSUM),
        }
}

#[test]
fn hw_csum_over_ip_csum_gives_ip_csum() {
    let upper = Features::HW_CSUM | Features::SG;
    let lower = Features::IP_CSUM | Features::SG | Features::TSO;
    assert_eq!(upper.intersect(lower), Features::IP_CSUM | Features::SG);
    assert_eq!(lower.intersect(upper), Features::IP_CSUM | Features::SG);
    // Both HW_CSUM: stays HW_CSUM (no IP_CSUM added).
    assert_eq!(
        Features::HW_CSUM.intersect(Features::HW_CSUM),
        Features::HW_CSUM
    );
    // Plain intersection otherwise.
    assert_eq!(
        (Features::IP_CSUM | Features::TSO).intersect(Features::IPV6_CSUM | Features::TSO),
        Features::TSO
    );
}

#[test]
fn fix_drops_what_cannot_stand() {
    let f = (Features::HW_CSUM | Features::IP_CSUM | Features::SG).fix();
    assert_eq!(f.features, Features::HW_CSUM | Features::SG);
    assert_eq!(f.dropped, Features::IP_CSUM);
    // TSO without SG.
    let f = (Features::IP_CSUM | Features::TSO | Features::TSO_ECN).fix();
    assert_eq!(f.features, Features::IP_CSUM);
    // TSO without IPv4 checksum; TSO6 kept with IPV6_CSUM.
    let f = (Features::IPV6_CSUM | Features::SG | Features::TSO | Features::TSO6).fix();
    assert_eq!(
        f.features,
        Features::IPV6_CSUM | Features::SG | Features::TSO6
    );
    assert_eq!(f.dropped, Features::TSO);
    // TSO_ECN alone.
    let f = (Features::HW_CSUM | Features::SG | Features::TSO_ECN).fix();
    assert_eq!(f.dropped, Features::TSO_ECN);
}

/// The 2005 Xen bridge: a bridge that advertises nothing stacked on a NIC
/// that can do everything exposes nothing, so every packet through it is
/// checksummed in software.
#[test]
fn bridge_advertising_nothing_exposes_nothing() {
    let nic = Features::all().fix().features;
    let stacked = Features::stacked(Features::empty(), nic);
    assert_eq!(stacked, Features::empty());
    assert!(!can(stacked, Net::Ipv4) && !can(stacked, Net::Ipv6));
    assert_eq!(
        Features::bridge(Features::empty(), &[nic, nic]),
        Features::empty()
    );
}

#[test]
fn bridge_gets_one_for_all_features_from_one_port() {
    let mask = Features::HW_CSUM | Features::SG | Features::TSO | Features::TSO6 | Features::RXCSUM;
    let ports = [
        Features::IP_CSUM,
        Features::HW_CSUM | Features::SG | Features::TSO,
    ];
    let b = Features::bridge(mask, &ports);
    // SG and TSO come from the one port that has them; HW_CSUM from the mask.
    assert!(b.contains(Features::HW_CSUM | Features::SG | Features::TSO));
    assert!(!b.intersects(Features::IP_CSUM | Features::IPV6_CSUM));
    // Not in the mask: never exposed, whatever the ports have.
    assert!(!b.contains(Features::GSO_UDP_L4));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn intersect_is_commutative_and_never_claims_more(a in any_features(), b in any_features()) {
        let i = a.intersect(b);
        prop_assert_eq!(i, b.intersect(a));
        for net in [Net::Ipv4, Net::Ipv6] {
            // A stacked device never checksums what one of the two cannot.
            if can(i, net) {
                prop_assert!(can(a, net) && can(b, net));
            }
        }
        // Outside the checksum bits it is a plain intersection.
        prop_assert_eq!(i - Features::CSUM_MASK, (a & b) - Features::CSUM_MASK);
    }

    #[test]
    fn fix_is_idempotent_and_partitions(a in any_features()) {
        let f = a.fix();
        prop_assert_eq!(f.features.fix().features, f.features);
        prop_assert_eq!(f.features | f.dropped, a);
        prop_assert!((f.features & f.dropped).is_empty());
        // The rules hold on the result.
        let r = f.features;
        prop_assert!(!(r.contains(Features::HW_CSUM) && r.intersects(Features::IP_CSUM | Features::IPV6_CSUM)));
        if r.intersects(Features::ALL_TSO) { prop_assert!(r.contains(Features::SG)); }
        if r.contains(Features::TSO) { prop_assert!(can(r, Net::Ipv4)); }
        if r.contains(Features::TSO6) { prop_assert!(can(r, Net::Ipv6)); }
    }

    #[test]
    fn harmonize_strips_offloads_for_unsupported_protocols(a in any_features()) {
        for net in [Net::Ipv4, Net::Ipv6] {
            let h = a.harmonize(net);
            prop_assert_eq!(h.can_checksum(net), can(a, net));
            if !can(a, net) {
                prop_assert!(!h.intersects(Features::CSUM_MASK | Features::GSO_MASK));
            } else {
                prop_assert_eq!(h, a);
            }
        }
    }
}
