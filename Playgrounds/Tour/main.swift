import Curlfire
import Foundation

let base = CommandLine.arguments.dropFirst().first ?? "http://127.0.0.1:18080"
let done = DispatchSemaphore(value: 0)
Curlfire.request("\(base)/get", parameters: ["q": "swift"], headers: ["X-Trace": "1"])
    .validate()
    .responseJSON { response in
        print(response.debugDescription)
        print(response.metrics as Any)
        done.signal()
    }
done.wait()
let r = Curlfire.request("\(base)/gzip")
print(r.debugDescription)
let s = try await r.serializingString().value
print(s.prefix(80))
