// Curlfire's public API speaks Foundation's URL-loading types (`URLRequest`, `HTTPURLResponse`),
// which live in FoundationNetworking on Linux. Re-export both so `import Curlfire` is enough.
@_exported import Foundation
@_exported import FoundationNetworking
