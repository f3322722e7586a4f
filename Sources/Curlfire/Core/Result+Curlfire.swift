import Foundation
import FoundationNetworking

extension Result {
    /// The success value, or `nil`.
    public var value: Success? {
        if case let .success(value) = self { return value } else { return nil }
    }

    /// The failure, or `nil`.
    public var error: Failure? {
        if case let .failure(error) = self { return error } else { return nil }
    }

    /// Whether this is a success.
    public var isSuccess: Bool { if case .success = self { return true } else { return false } }

    /// Whether this is a failure.
    public var isFailure: Bool { !isSuccess }
}
