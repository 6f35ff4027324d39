import MSALSupport
import Testing

@Suite("Hex: one decoder, one rule")
struct HexTests {
    @Test("Every byte value round-trips through the digits, and both cases of a digit decode alike")
    func roundTrip() {
        let all = (0...255).map(UInt8.init)
        let text = String(decoding: all.flatMap { [Hex.digit($0 >> 4), Hex.digit($0 & 0x0F)] }, as: UTF8.self)
        #expect(text.utf8.count == 512)
        #expect(text == text.lowercased())
        #expect(text.hasPrefix("000102") && text.hasSuffix("fdfeff"))
        #expect(Hex.decode(text) == all)
        #expect(Hex.decode(text.uppercased()) == all)
    }

    @Test(
        "Anything but pairs of hexadecimal digits is refused",
        arguments: [
            "0", "abc", "0x00", "zz", " 00", "00 ", "0g", "é0", "-1",
        ])
    func refusals(text: String) {
        #expect(Hex.decode(text) == nil)
    }

    @Test("Digit values, and the bytes just outside each range")
    func digits() {
        for (byte, value) in [("0", 0), ("9", 9), ("a", 10), ("f", 15), ("A", 10), ("F", 15)] as [(Character, UInt8)] {
            #expect(Hex.value(of: byte.asciiValue!) == value)
        }
        for byte in ["/", ":", "`", "g", "@", "G"] as [Character] {
            #expect(Hex.value(of: byte.asciiValue!) == nil)
            #expect(!Hex.isDigit(byte.asciiValue!))
        }
        #expect((0...255).filter { Hex.isDigit(UInt8($0)) }.count == 22)
    }

    @Test("A run of digits in a buffer: the \\u escape reader")
    func digitsInBuffer() {
        let bytes = Array("x00e9Z".utf8)
        bytes.withUnsafeBufferPointer { buffer in
            #expect(Hex.value(ofDigitsIn: buffer, at: 1, count: 4) == 0xE9)
            #expect(Hex.value(ofDigitsIn: buffer, at: 2, count: 4) == nil)  // "Z" is not a digit
            #expect(Hex.value(ofDigitsIn: buffer, at: 3, count: 4) == nil)  // runs past the end
            #expect(Hex.value(ofDigitsIn: buffer, at: -1, count: 2) == nil)
        }
    }
}
