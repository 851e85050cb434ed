import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl

@Suite("DownloadResume: what a download does with each head and each drop")
struct DownloadResumeTests {
    static let etag = DownloadValidator(["ETag": #""v1""#])!

    @Test func aFreshDownloadSendsNoRangeAndWritesFromZero() {
        var resume = DownloadResume()
        #expect(resume.requestFields.isEmpty)
        let decision = resume.decide(status: 200, headers: ["Content-Length": "1000", "ETag": #""v1""#])
        #expect(decision == .write(from: 0, expectedBytes: 1000))
        #expect(resume.validator == Self.etag)
    }

    @Test func aPartialWithAStrongValidatorAsksForTheRest() {
        let resume = DownloadResume(offset: 400, validator: Self.etag)
        #expect(resume.requestFields == ["Range": "bytes=400-", "If-Range": #""v1""#])
        #expect(resume.isResumable)
    }

    @Test func aPartialWithoutAValidatorStartsFromZero() {
        let resume = DownloadResume(offset: 400, validator: nil)
        #expect(resume.offset == 0)
        #expect(resume.requestFields.isEmpty)
        #expect(!resume.isResumable)
    }

    @Test func aMatching206ContinuesAtTheOffsetWithTheTotalOfItsContentRange() {
        var resume = DownloadResume(offset: 400, validator: Self.etag)
        let decision = resume.decide(
            status: 206, headers: ["Content-Range": "bytes 400-999/1000", "Content-Length": "600", "ETag": #""v1""#])
        #expect(decision == .write(from: 400, expectedBytes: 1000))
    }

    @Test func a206WithAnUnknownTotalAddsItsLengthToTheOffset() {
        var resume = DownloadResume(offset: 400, validator: Self.etag)
        let decision = resume.decide(
            status: 206, headers: ["Content-Range": "bytes 400-999/*", "Content-Length": "600"])
        #expect(decision == .write(from: 400, expectedBytes: 1000))
    }

    @Test func a200ToARangeRequestStartsOverWithTheNewValidator() {
        var resume = DownloadResume(offset: 400, validator: Self.etag)
        let decision = resume.decide(status: 200, headers: ["Content-Length": "2000", "ETag": #""v2""#])
        #expect(decision == .write(from: 0, expectedBytes: 2000))
        #expect(resume.validator?.value == #""v2""#)
        #expect(resume.offset == 0)
    }

    @Test(arguments: [
        ["Content-Range": "bytes 0-999/1000"],  // another start
        ["Content-Range": "bytes 400-999/1000", "ETag": #""v2""#],  // another file
        ["Content-Range": "bytes 400-999/1000", "ETag": "\"v1\u{1}\""],  // a validator named but unusable (fuzzing)
        ["Content-Range": "bytes 400-999/1000", "Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT"],  // another kind
        ["Content-Range": "bytes 400-999/300"],  // nonsense
        ["Content-Range": "bytes 400-499/1000"],  // short of the end
        [:],  // no range at all
    ])
    func a206ThatDoesNotContinueThePartialRestarts(_ fields: [String: String]) {
        var resume = DownloadResume(offset: 400, validator: Self.etag)
        #expect(resume.decide(status: 206, headers: HeaderFields(fields)) == .restart)
        #expect(resume.offset == 0)
        #expect(resume.requestFields.isEmpty)
    }

    @Test func a416Restarts() {
        var resume = DownloadResume(offset: 1000, validator: Self.etag)
        #expect(resume.rangeNotSatisfiable() == .restart)
        #expect(resume.requestFields.isEmpty)
    }

    @Test func aDropWithAValidatorResumesFromWhatWasWritten() {
        var resume = DownloadResume()
        _ = resume.decide(status: 200, headers: ["Content-Length": "1000", "ETag": #""v1""#])
        #expect(resume.stopped(afterWriting: 400) == .resume(from: 400))
        #expect(resume.requestFields == ["Range": "bytes=400-", "If-Range": #""v1""#])
    }

    @Test func aDropWithoutAValidatorRestartsFromZero() {
        var resume = DownloadResume()
        _ = resume.decide(status: 200, headers: ["Content-Length": "1000"])
        #expect(resume.stopped(afterWriting: 400) == .restart)
        #expect(resume.requestFields.isEmpty)
        #expect(!resume.isResumable)
    }

    @Test func aWeakETagIsNoValidatorButLastModifiedIs() {
        #expect(DownloadValidator(["ETag": #"W/"v1""#]) == nil)
        let date = "Tue, 01 Dec 2026 10:00:00 GMT"
        let validator = DownloadValidator(["ETag": #"W/"v1""#, "Last-Modified": date])
        #expect(validator?.field == "Last-Modified")
        #expect(validator?.value == date)
    }

    @Test func aContentEncodedBodyCannotBeResumedAndHasNoKnownTotal() {
        var resume = DownloadResume()
        let decision = resume.decide(
            status: 200, headers: ["Content-Length": "300", "Content-Encoding": "gzip", "ETag": #""v1""#])
        #expect(decision == .write(from: 0, expectedBytes: nil))
        #expect(resume.stopped(afterWriting: 100) == .restart)
    }

    @Test func theSidecarLineReadsBackAsTheSameValidator() {
        #expect(DownloadValidator(line: Self.etag.line) == Self.etag)
        let date = DownloadValidator(["Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT"])!
        #expect(DownloadValidator(line: date.line) == date)
        #expect(DownloadValidator(line: "garbage") == nil)
        #expect(DownloadValidator(line: "Location: /x") == nil)
    }

    /// Found by FuzzValidators' seed: a sidecar changed on disk gave a value with a line break, which then went into
    /// `If-Range`; it is refused, and the download starts over.
    @Test func aSidecarWhoseValueHoldsAControlCharacterIsNoValidator() {
        #expect(DownloadValidator(line: "ETag: \"v2\"\r\nX-Evil: 1") == nil)
        #expect(DownloadValidator(line: "Last-Modified: Tue,\u{0} 01 Dec 2026") == nil)
        #expect(DownloadValidator(line: "ETag: \"a\tb\"")?.value == "\"a\tb\"", "a tab may stand in a field value")
    }
}
