/// A data request's validators in attach order, in one pointer: `DataRequest` (its core and these)
/// must fit an existential's inline buffer (three words), or every `any Request` made for
/// notifications and monitors would be boxed.
///
/// The usual chain has one validator, `validate(statusCode:)` with an array: that array is kept as it
/// is, so the chain allocates no list (an `[DataValidator]` allocated its buffer on the first
/// `validate`, once per request). Any other validator, or a second one, moves them to a list.
struct DataValidators: Sendable, Sequence, ExpressibleByArrayLiteral {
    fileprivate enum Storage: Sendable {
        case none
        /// `validate(statusCode:)` with an array, the only validator.
        case statusCodes([Int])
        case list([DataValidator])
    }

    private var storage = Storage.none

    /// No validators.
    init() {}

    /// `validators`, in order.
    init(_ validators: [DataValidator]) {
        for validator in validators { append(validator) }
    }

    /// The validators listed, in order.
    init(arrayLiteral validators: DataValidator...) { self.init(validators) }

    /// Whether there is no validator.
    var isEmpty: Bool {
        if case .none = storage { return true }
        return false
    }

    /// The acceptable codes when the only validator is `validate(statusCode:)` with an array:
    /// checked as they are, without wrapping them in a `DataValidator` and casting them back.
    var onlyStatusCodes: [Int]? {
        if case let .statusCodes(codes) = storage { return codes }
        return nil
    }

    /// Adds `validate(statusCode:)`'s array after the others: kept as it is when it comes first,
    /// with no dynamic cast (`append(_:)` must cast the existential back to an array).
    mutating func append(statusCodes codes: [Int]) {
        if case .none = storage {
            storage = .statusCodes(codes)
        } else {
            append(.statusCode(codes))
        }
    }

    /// Adds a validator after the others.
    mutating func append(_ validator: DataValidator) {
        switch storage {
        case .none:
            if case let .statusCode(codes) = validator, let array = codes as? [Int] {
                storage = .statusCodes(array)
            } else {
                storage = .list([validator])
            }
        case let .statusCodes(codes):
            storage = .list([.statusCode(codes), validator])
        case var .list(validators):
            storage = .none // the list's buffer unique again: appended in place when it can be
            validators.append(validator)
            storage = .list(validators)
        }
    }

    /// Iterates the validators in order.
    func makeIterator() -> Iterator { Iterator(storage: storage) }

    /// The validators in order, without allocating.
    struct Iterator: IteratorProtocol {
        fileprivate let storage: Storage
        private var index = 0

        fileprivate init(storage: Storage) { self.storage = storage }

        /// The next validator.
        mutating func next() -> DataValidator? {
            defer { index += 1 }
            switch storage {
            case .none: return nil
            case let .statusCodes(codes): return index == 0 ? .statusCode(codes) : nil
            case let .list(validators): return index < validators.count ? validators[index] : nil
            }
        }
    }
}
