#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension NetworkMetrics {
    /// A short, stable name for what an error is, as metrics and traces label failures
    /// (OpenTelemetry's `error.type`): a ``NetworkError``'s case (`timedOut`, `cannotConnect`,
    /// `tooManyRedirects`, `invalidStatusCode`), `CancellationError`, or another error's type name.
    public static func errorType(of error: any Error) -> String {
        switch error {
        case is CancellationError: "CancellationError"
        case NetworkError.request(let failure): failure.caseName
        case NetworkError.transport(let failure): failure.caseName
        case NetworkError.stream(let failure): failure.caseName
        case NetworkError.responseData(let failure): failure.caseName
        case NetworkError.responseDownload(let failure): failure.caseName
        case NetworkError.responseUpload(let failure): failure.caseName
        default: String(describing: type(of: error))
        }
    }
}

extension NetworkError.RequestFailure {
    var caseName: String {
        switch self {
        case .invalidURL: "invalidURL"
        case .invalidMethod: "invalidMethod"
        case .invalidHeader: "invalidHeader"
        case .encodeError: "encodeError"
        case .invalidTimeout: "invalidTimeout"
        case .unreadableBodyFile: "unreadableBodyFile"
        case .bodyLengthMismatch: "bodyLengthMismatch"
        case .requestHeadTooLarge: "requestHeadTooLarge"
        case .unresumableMethod: "unresumableMethod"
        }
    }
}

extension NetworkError.TransportFailure {
    var caseName: String {
        switch self {
        case .cannotConnect: "cannotConnect"
        case .timedOut: "timedOut"
        case .connectionLost: "connectionLost"
        case .cancelled: "cancelled"
        case .tls: "tls"
        case .publicKeyPinMismatch: "publicKeyPinMismatch"
        case .invalidTLSSettings: "invalidTLSSettings"
        case .proxy: "proxy"
        case .unsupportedSetting: "unsupportedSetting"
        case .tooManyRedirects: "tooManyRedirects"
        case .cannotWriteBody: "cannotWriteBody"
        case .notInCache: "notInCache"
        case .responseBodyLimitExceeded: "responseBodyLimitExceeded"
        case .other: "other"
        }
    }
}

extension NetworkError.StreamFailure {
    var caseName: String {
        switch self {
        case .lineTooLong: "lineTooLong"
        case .eventTooLarge: "eventTooLarge"
        case .undecodableLine: "undecodableLine"
        case .notAnEventStream: "notAnEventStream"
        case .stoppedByServer: "stoppedByServer"
        case .reconnectionsExhausted: "reconnectionsExhausted"
        }
    }
}

extension NetworkError.ResponseFailure {
    var caseName: String {
        switch self {
        case .invalidStatusCode: "invalidStatusCode"
        case .invalidContentType: "invalidContentType"
        case .decodeError: "decodeError"
        case .unreadableBody: "unreadableBody"
        }
    }
}
