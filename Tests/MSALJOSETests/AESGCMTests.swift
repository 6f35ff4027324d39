import MSALJOSE
import MSALSupport
import Testing

/// AES-256-GCM through OpenSSL (``AESGCM``): the GCM specification's AES-256 test cases (McGrew and
/// Viega, test cases 13, 14 and 16; checked against Python's `cryptography` too), round trips, and
/// every way a sealed box can fail to open.
@Suite struct AESGCMTests {
    static func hex(_ text: String) -> [UInt8] { TestTokenFactory.bytes(hex: text) }

    static let vectors: [(name: String, key: String, nonce: String, plaintext: String, aad: String, ciphertext: String, tag: String)] = [
        (
            "test case 13 (empty)", String(repeating: "00", count: 32), String(repeating: "00", count: 12), "", "", "",
            "530f8afbc74536b9a963b4f1c4cb738b"
        ),
        (
            "test case 14", String(repeating: "00", count: 32), String(repeating: "00", count: 12), String(repeating: "00", count: 16),
            "", "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"
        ),
        (
            "test case 16 (authenticated data)", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
            "cafebabefacedbaddecaf888",
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
            "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
            "76fc6ece0f4e1768cddf8853bb2d551b"
        ),
    ]

    @Test("The GCM specification's AES-256 vectors open to their plaintext; a changed tag, ciphertext, nonce or AAD does not open")
    func vectors() throws {
        for vector in Self.vectors {
            let box = AESGCM.Box(nonce: Self.hex(vector.nonce), ciphertext: Self.hex(vector.ciphertext), tag: Self.hex(vector.tag))
            let key = Self.hex(vector.key)
            let aad = Self.hex(vector.aad)
            #expect(try AESGCM.open(box, key: key, authenticatedData: aad) == Self.hex(vector.plaintext), "\(vector.name)")

            var tag = box
            tag.tag[0] ^= 1
            var nonce = box
            nonce.nonce[11] ^= 0x80
            var changes = [tag, nonce]
            if !box.ciphertext.isEmpty {
                var ciphertext = box
                ciphertext.ciphertext[ciphertext.ciphertext.count - 1] ^= 1
                changes.append(ciphertext)
            }
            for changed in changes {
                #expect(throws: JOSEError(.invalidSignature, "The sealed data does not authenticate under this key")) {
                    _ = try AESGCM.open(changed, key: key, authenticatedData: aad)
                }
            }
            #expect(throws: JOSEError.self) { _ = try AESGCM.open(box, key: key, authenticatedData: aad + [0]) }
            var otherKey = key
            otherKey[0] ^= 1
            #expect(throws: JOSEError.self) { _ = try AESGCM.open(box, key: otherKey, authenticatedData: aad) }
        }
    }

    @Test("Seal then open: empty and large plaintexts, with and without authenticated data; a fresh nonce every time")
    func roundTrip() throws {
        let key = try SecureRandom.bytes(count: 32)
        for size in [0, 1, 15, 16, 17, 4096, 1 << 20] {
            let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let box = try AESGCM.seal(plaintext, key: key, authenticatedData: Array("partition".utf8))
            #expect(box.nonce.count == 12 && box.tag.count == 16 && box.ciphertext.count == size)
            #expect(try AESGCM.open(box, key: key, authenticatedData: Array("partition".utf8)) == plaintext)
            #expect(throws: JOSEError.self) { _ = try AESGCM.open(box, key: key, authenticatedData: Array("other".utf8)) }
        }
        let first = try AESGCM.seal([1, 2, 3], key: key)
        let second = try AESGCM.seal([1, 2, 3], key: key)
        #expect(first.nonce != second.nonce)
        #expect(first.ciphertext != second.ciphertext)
    }

    @Test("A key that is not 32 bytes, a nonce or tag of the wrong size: typed errors, never a crash")
    func badInputs() throws {
        for size in [0, 16, 24, 31, 33] {
            #expect(throws: JOSEError.self) { _ = try AESGCM.seal([1], key: [UInt8](repeating: 1, count: size)) }
        }
        let key = [UInt8](repeating: 9, count: 32)
        let box = try AESGCM.seal([1, 2, 3], key: key)
        for (nonce, tag) in [
            ([UInt8](), box.tag), (box.nonce + [0], box.tag), (box.nonce, [UInt8]()), (box.nonce, Array(box.tag.prefix(12))),
        ] {
            #expect(throws: JOSEError.self) {
                _ = try AESGCM.open(AESGCM.Box(nonce: nonce, ciphertext: box.ciphertext, tag: tag), key: key)
            }
        }
    }
}
