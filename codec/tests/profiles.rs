//! Release profiles: which components each release registers, which types each component
//! registers there, and that a component a release lacks is refused as a whole. The
//! expectations are what the real libraries did through the oracle (`tools/peers.sh`):
//! e.g. 6.1.0's v61 answers -16 to ALLOC_INHERIT, 7.0.0rc1 has no v20 at all.

use pmix_codec::*;

#[test]
fn component_refusals() {
    let inherit = Item::one(Value::AllocInherit(2));
    let cases = [
        (Release::OpenPmix7_0, Component::V12),
        (Release::OpenPmix7_0, Component::V20),
        (Release::OpenPmix4_2, Component::V51),
        (Release::OpenPmix5_0, Component::V61),
        (Release::OpenPmix6_0, Component::V61),
    ];
    for (rel, comp) in cases {
        let codec = Codec::new(comp, BufferKind::NonDescribed).with_release(rel);
        let e = codec.encode(&[Item::one(Value::Uint8(1))]).unwrap_err();
        assert_eq!(e.status, Status::ERR_NOT_SUPPORTED, "{rel} {comp}");
        assert!(
            e.reason.contains("does not register bfrops component"),
            "{}",
            e.reason
        );
        let e = codec.decode(&[0x01, 0x01], &[DataType::UINT8]).unwrap_err();
        assert_eq!(e.status, Status::ERR_NOT_SUPPORTED, "{rel} {comp} decode");
        let mut buf = Vec::new();
        assert!(codec.packer(&mut buf).pack(&inherit).is_err());
    }
}

#[test]
fn components_per_release() {
    let names = |r: Release| -> Vec<&str> { r.components().iter().map(|c| c.name()).collect() };
    assert_eq!(
        names(Release::OpenPmix4_2),
        ["v12", "v20", "v21", "v3", "v4", "v41"]
    );
    assert_eq!(names(Release::OpenPmix5_0), names(Release::OpenPmix4_2));
    assert_eq!(
        names(Release::OpenPmix6_0),
        ["v12", "v20", "v21", "v3", "v4", "v41", "v51"]
    );
    assert_eq!(names(Release::OpenPmix6_1).len(), 8);
    assert_eq!(
        names(Release::OpenPmix7_0),
        ["v21", "v3", "v4", "v41", "v51", "v61"]
    );
}

#[test]
fn type_75_only_in_7_0_and_master_v61() {
    let t = DataType::ALLOC_INHERIT;
    for rel in Release::ALL {
        for comp in rel.components() {
            let want =
                *comp == Component::V61 && matches!(rel, Release::OpenPmix7_0 | Release::Master);
            assert_eq!(comp.registers(t, rel), want, "{rel} {comp}");
        }
    }
    // 6.1.0's v61 refuses it as unknown (-16), as the oracle showed.
    let six =
        Codec::new(Component::V61, BufferKind::NonDescribed).with_release(Release::OpenPmix6_1);
    let e = six
        .encode(&[Item::one(Value::AllocInherit(2))])
        .unwrap_err();
    assert_eq!(e.status, Status::ERR_UNKNOWN_DATA_TYPE);
    // ... while NODE_PID (73) arrived in 6.1 and the STATS types (61-64) left.
    assert!(Component::V61.registers(DataType::NODE_PID, Release::OpenPmix6_1));
    assert!(!Component::V61.registers(DataType::REGEX2, Release::OpenPmix6_1));
    assert!(Component::V41.registers(DataType::PROC_STATS, Release::OpenPmix6_0));
    assert!(!Component::V41.registers(DataType::PROC_STATS, Release::OpenPmix6_1));
    assert!(Component::V51.registers(DataType::DEVICE, Release::OpenPmix6_0));
    assert!(!Component::V41.registers(DataType::DEVICE, Release::OpenPmix6_0));
}

#[test]
fn names_and_judges_round_trip() {
    for rel in Release::ALL {
        assert_eq!(rel.name().parse::<Release>().unwrap(), rel);
        for lib in rel.profile().judged_by {
            assert_eq!(Release::judged_by(lib), Some(rel), "{lib}");
            assert_eq!(lib.parse::<Release>().unwrap(), rel, "{lib}");
        }
    }
    let e = "6.2".parse::<Release>().unwrap_err();
    for rel in Release::ALL {
        assert!(e.contains(rel.name()), "the error names {rel}: {e}");
    }
    assert_eq!(Release::judged_by("4.2.2"), Some(Release::OpenPmix4_2));
    assert_eq!(Release::judged_by("5.0.7"), Some(Release::OpenPmix5_0));
    assert_eq!(Release::judged_by("7.0.0rc1"), Some(Release::OpenPmix7_0));
    assert_eq!(Release::judged_by("3.2.3"), None);
}

#[test]
fn pack_depth_cap_only_from_7_0() {
    // 4.2.2, 6.0.0 and 6.1.0 pack a DATA_ARRAY nested 102 deep; 7.0.0rc1 refuses (-21).
    let mut v = Value::array(DataType::UINT8, vec![Value::Uint8(7)]);
    for _ in 1..102 {
        v = Value::array(DataType::DATA_ARRAY, vec![v]);
    }
    let item = Item::one(v);
    for (rel, capped) in [
        (Release::OpenPmix4_2, false),
        (Release::OpenPmix6_0, false),
        (Release::OpenPmix6_1, false),
        (Release::OpenPmix7_0, true),
    ] {
        let codec = Codec::new(Component::V41, BufferKind::NonDescribed).with_release(rel);
        let r = codec.encode(std::slice::from_ref(&item));
        assert_eq!(r.is_err(), capped, "{rel}");
        if let Err(e) = r {
            assert_eq!(e.status, Status::ERR_PACK_FAILURE);
        }
    }
}
