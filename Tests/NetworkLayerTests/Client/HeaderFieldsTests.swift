import Foundation
import NetworkLayer
import Testing

@Suite("HeaderFields: names without regard to case")
struct HeaderFieldsTests {
    @Test func aFieldIsFoundUnderAnySpellingOfItsName() {
        let fields = HeaderFields(["Etag": "\"v1\"", "content-type": "application/json"])
        #expect(fields["ETag"] == "\"v1\"")
        #expect(fields["etag"] == "\"v1\"")
        #expect(fields["Content-Type"] == "application/json")
        #expect(fields["Content-Length"] == nil)
        #expect(fields["E@ag"] == nil, "only letters fold: @ is not `")
    }

    @Test func settingReplacesEverySpellingAndNilRemoves() {
        var fields: HeaderFields = ["accept": "text/html", "X-A": "1"]
        fields["Accept"] = "application/json"
        #expect(fields.map(\.name) == ["Accept", "X-A"], "replaced in place, under the new spelling")
        #expect(fields["ACCEPT"] == "application/json")
        fields["x-a"] = nil
        #expect(fields.count == 1)
        fields["X-B"] = "2"
        #expect(fields.map(\.name) == ["Accept", "X-B"], "a new field goes last")
    }

    @Test func fieldsKeepTheirOrderAndADictionaryIsSortedByName() {
        let literal: HeaderFields = ["Zeta": "1", "alpha": "2", "Zeta": "3"]
        #expect(literal.map(\.name) == ["Zeta", "alpha"])
        #expect(literal["zeta"] == "3", "a name given twice keeps its last value")
        #expect(HeaderFields(["b": "1", "A": "2", "c": "3"]).map(\.name) == ["A", "b", "c"])
    }

    @Test func equalityAndHashingIgnoreTheCaseOfNamesButNotOfValues() {
        let first: HeaderFields = ["ETag": "\"v1\""]
        #expect(first == ["etag": "\"v1\""])
        #expect(first != ["ETag": "\"V1\""])
        #expect(Set([first, ["ETAG": "\"v1\""]]).count == 1)
    }

    @Test func theyRoundTripAsAJSONObject() throws {
        let fields: HeaderFields = ["Content-Type": "text/plain", "X-Id": "7"]
        let data = try JSONEncoder().encode(fields)
        #expect(try JSONDecoder().decode([String: String].self, from: data) == fields.dictionary)
        #expect(try JSONDecoder().decode(HeaderFields.self, from: data) == fields)
        #expect("\(fields)" == "Content-Type: text/plain; X-Id: 7")
    }
}
