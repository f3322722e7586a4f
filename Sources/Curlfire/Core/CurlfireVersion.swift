/// The version of this library (semantic versioning), as sent in the default `User-Agent`.
///
/// Kept in step with the newest released section of `CHANGELOG.md` (CurlfireVersionTests reads the
/// changelog and fails when they differ): a release bumps both in one commit.
public let CurlfireVersion = "0.1.0"
