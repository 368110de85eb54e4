/// The GeoLife users kept back as the final test of issue 23's work, chosen by a rule written down before any of them
/// was scored (2026-12-03), and looked at once, at the end.
///
/// **Rule.** Only `../shared/corpus/geolife-more/` qualifies: its 17 users were never used to choose a parameter
/// (the 15 of `geolife/` were, by leave-one-user-out). Of its users sorted by id, those at even positions (2nd, 4th,
/// …, 16th) are kept back: 067 082 101 126 139 154 170 175. Then every user that shares recordings or label rows with
/// one of them (`PROVENANCE.md`: 101 and 174 recorded the same car trips; 154 and 161 share label rows, and 082 one
/// with each) is kept back with it, so no development user carries a copy of a lockbox user's data: 161 and 174. Ten
/// users, 31 % of the 32; the other 22 are the development set, tuned on by leave-one-user-out only.
public enum GeoLifeLockbox {
    public static let users: Set<String> = ["067", "082", "101", "126", "139", "154", "161", "170", "174", "175"]

    /// Whether a user folder (its last path component is the user id) is kept back.
    public static func contains(userDirectory: String) -> Bool {
        let name = userDirectory.split(separator: "/").last.map(String.init) ?? userDirectory
        return users.contains(name)
    }
}
