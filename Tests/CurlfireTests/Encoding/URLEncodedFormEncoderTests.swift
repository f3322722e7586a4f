import Foundation
import FoundationNetworking
import XCTest
@testable import Curlfire

final class URLEncodedFormEncoderTests: XCTestCase {
    private struct Nested: Encodable {
        let b = "2"
        let a = ["x": 1]
    }

    private struct Sample: Encodable {
        let zulu = "z"
        let array = ["a", "b"]
        let nested = Nested()
        let items = [Nested()]
    }

    private func encode<T: Encodable>(_ value: T, _ encoder: URLEncodedFormEncoder = URLEncodedFormEncoder()) throws -> String {
        try encoder.encode(value)
    }

    // MARK: - Structure

    func testThatNestedContainersAreEncodedWithSortedKeys() throws {
        XCTAssertEqual(try encode(Sample()),
                       "array%5B%5D=a&array%5B%5D=b&items%5B%5D%5Ba%5D%5Bx%5D=1&items%5B%5D%5Bb%5D=2"
                       + "&nested%5Ba%5D%5Bx%5D=1&nested%5Bb%5D=2&zulu=z")
    }

    func testThatAlphabetizingCanBeTurnedOff() throws {
        // Given
        let encoder = URLEncodedFormEncoder(alphabetizeKeyValuePairs: false)
        // When / Then
        XCTAssertEqual(try encode(Sample(), encoder),
                       "zulu=z&array%5B%5D=a&array%5B%5D=b&nested%5Bb%5D=2&nested%5Ba%5D%5Bx%5D=1"
                       + "&items%5B%5D%5Bb%5D=2&items%5B%5D%5Ba%5D%5Bx%5D=1")
    }

    func testThatDictionariesAreEncodedAsKeyedContainers() throws {
        XCTAssertEqual(try encode(["b": ["y": [1, 2]], "a": ["x": [3]]]),
                       "a%5Bx%5D%5B%5D=3&b%5By%5D%5B%5D=1&b%5By%5D%5B%5D=2")
    }

    func testThatANonKeyedTopLevelValueThrows() {
        XCTAssertThrowsError(try encode([1, 2])) { error in
            XCTAssertEqual(error as? URLEncodedFormEncoder.Error, .invalidRootObject("Array<Int>"))
        }
        XCTAssertThrowsError(try encode("text")) { error in
            XCTAssertEqual(error as? URLEncodedFormEncoder.Error, .invalidRootObject("String"))
        }
    }

    func testThatAnEmptyValueEncodesToAnEmptyString() throws {
        struct Empty: Encodable {}
        XCTAssertEqual(try encode(Empty()), "")
        let data: Data = try URLEncodedFormEncoder().encode(["a": 1])
        XCTAssertEqual(data, Data("a=1".utf8))
    }

    // MARK: - Options

    func testThatEveryArrayEncodingIsApplied() throws {
        let value = ["list": [["x", "y"]]]
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(arrayEncoding: .brackets)),
                       "list%5B%5D%5B%5D=x&list%5B%5D%5B%5D=y")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(arrayEncoding: .noBrackets)), "list=x&list=y")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(arrayEncoding: .indexInBrackets)),
                       "list%5B0%5D%5B0%5D=x&list%5B0%5D%5B1%5D=y")
    }

    func testThatEveryBoolEncodingIsAppliedToBooleansOnly() throws {
        struct Flags: Encodable { let on = true; let off = false; let one = 1; let zero = 0.0; let list = [true] }
        XCTAssertEqual(try encode(Flags(), URLEncodedFormEncoder(boolEncoding: .numeric)),
                       "list%5B%5D=1&off=0&on=1&one=1&zero=0")
        XCTAssertEqual(try encode(Flags(), URLEncodedFormEncoder(boolEncoding: .literal)),
                       "list%5B%5D=true&off=false&on=true&one=1&zero=0")
    }

    func testThatEveryDataEncodingIsApplied() throws {
        let value = ["d": Data([1, 2, 255])]
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(dataEncoding: .base64)), "d=AQL/")
        XCTAssertEqual(try encode(["d": Data([0xFB])], URLEncodedFormEncoder(dataEncoding: .base64)), "d=%2Bw%3D%3D")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(dataEncoding: .deferredToData)),
                       "d%5B%5D=1&d%5B%5D=2&d%5B%5D=255")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(dataEncoding: .custom { "\($0.count) bytes" })),
                       "d=3%20bytes")
    }

    func testThatEveryDateEncodingIsApplied() throws {
        // Given
        let value = ["t": Date(timeIntervalSince1970: 1.5)]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        // When / Then
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(dateEncoding: .deferredToDate)), "t=-978307198.5")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(dateEncoding: .secondsSince1970)), "t=1.5")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(dateEncoding: .millisecondsSince1970)), "t=1500")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(dateEncoding: .iso8601)), "t=1970-01-01T00%3A00%3A01Z")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(dateEncoding: .formatted(formatter))), "t=1970-01-01%2000%3A00")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(dateEncoding: .custom { "\(Int($0.timeIntervalSince1970))s" })),
                       "t=1s")
    }

    func testThatEveryKeyEncodingIsApplied() throws {
        struct Keys: Encodable {
            let oneTwo = 1
            let myURLValue = 2
            let _private = 3 // swiftlint:disable:this identifier_name
        }
        let cases: [(URLEncodedFormEncoder.KeyEncoding, String)] = [
            (.useDefaultKeys, "_private=3&myURLValue=2&oneTwo=1"),
            (.convertToSnakeCase, "_private=3&my_url_value=2&one_two=1"),
            (.convertToKebabCase, "_private=3&my-url-value=2&one-two=1"),
            (.capitalized, "MyURLValue=2&OneTwo=1&_private=3"),
            (.uppercased, "MYURLVALUE=2&ONETWO=1&_PRIVATE=3"),
            (.lowercased, "_private=3&myurlvalue=2&onetwo=1"),
            (.custom { "k." + $0 }, "k._private=3&k.myURLValue=2&k.oneTwo=1"),
        ]
        for (keyEncoding, expected) in cases {
            XCTAssertEqual(try encode(Keys(), URLEncodedFormEncoder(keyEncoding: keyEncoding)), expected)
        }
        XCTAssertEqual(try encode(["nestedKey": ["innerKey": 1]], URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase)),
                       "nested_key%5Binner_key%5D=1")
    }

    func testThatEveryNilEncodingIsApplied() throws {
        struct Optionals: Encodable {
            let missing: String? = nil
            let present: Int? = 1
            let list: [Int?] = [nil, 2]
        }
        XCTAssertEqual(try encode(Optionals(), URLEncodedFormEncoder(nilEncoding: .dropKey)), "list%5B%5D=2&present=1")
        XCTAssertEqual(try encode(Optionals(), URLEncodedFormEncoder(nilEncoding: .dropValue)),
                       "list%5B%5D=&list%5B%5D=2&missing=&present=1")
        XCTAssertEqual(try encode(Optionals(), URLEncodedFormEncoder(nilEncoding: .null)),
                       "list%5B%5D=null&list%5B%5D=2&missing=null&present=1")
    }

    func testThatEverySpaceEncodingIsApplied() throws {
        let value = ["a b": "c d+e"]
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(spaceEncoding: .percentEscaped)), "a%20b=c%20d%2Be")
        XCTAssertEqual(try encode(value, URLEncodedFormEncoder(spaceEncoding: .plusReplaced)), "a+b=c+d%2Be")
    }

    // MARK: - Values

    func testThatNumbersAreSpelledLikeURLEncoding() throws {
        struct Numbers: Encodable {
            let d = 1.0; let e = 1.5; let f = Float(0.1); let g = 1e20; let i = -3; let u = UInt64.max
            let dec = Decimal(string: "2.50")!
            let url = URL(string: "https://a.b/c d")
        }
        XCTAssertEqual(try encode(Numbers()),
                       "d=1&dec=2.5&e=1.5&f=0.1&g=100000000000000000000&i=-3&u=18446744073709551615&url=https%3A//a.b/c%2520d")
    }

    func testThatNonFiniteNumbersThrowInvalidValue() {
        XCTAssertThrowsError(try encode(["x": [Double.nan]])) { error in
            guard case let EncodingError.invalidValue(_, context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["x", "0"])
        }
        XCTAssertThrowsError(try encode(["x": Float.infinity]))
    }

    func testThatEscapingMatchesURLEncoding() throws {
        let text = ":#[]@!$&'()*+,;= ?/%😀مرحبا"
        XCTAssertEqual(try encode(["k": text]), "k=" + URLEncoding.default.escape(text))
    }

    func testThatCustomEncodeImplementationsWithSuperEncodersWork() throws {
        struct Custom: Encodable {
            enum Keys: String, CodingKey { case name, tags }
            func encode(to encoder: Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode("n", forKey: .name)
                var tags = container.nestedUnkeyedContainer(forKey: .tags)
                try tags.encode("t1")
                var inner = tags.nestedContainer(keyedBy: Keys.self)
                try inner.encode("deep", forKey: .name)
                try "sup".encode(to: container.superEncoder())
            }
        }
        XCTAssertEqual(try encode(Custom(), URLEncodedFormEncoder(arrayEncoding: .indexInBrackets)),
                       "name=n&super=sup&tags%5B0%5D=t1&tags%5B1%5D%5Bname%5D=deep")
    }
}
