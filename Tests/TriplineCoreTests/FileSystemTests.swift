#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Testing
import TriplineCore
import TriplineTestSupport

/// `FileSystem.removeTree`, which cleans the scratch folders of `tripline evaluate`, the benchmarks and the tests.
@Suite struct FileSystemTests {
    /// A tree with files, an empty folder, a nested folder and a link to a folder outside it: the tree goes, the
    /// folder the link points to and its file stay.
    @Test func removeTreeRemovesEverythingBelowButFollowsNoLink() throws {
        let base = try temporaryDirectory()
        let tree = base + "/tree", outside = base + "/outside"
        try FileSystem.createDirectory(tree + "/a/b")
        try FileSystem.createDirectory(tree + "/empty")
        try FileSystem.createDirectory(outside)
        try FileSystem.write(Array("keep".utf8), to: outside + "/keep.txt")
        try FileSystem.write(Array("x".utf8), to: tree + "/one.txt")
        try FileSystem.write(Array("y".utf8), to: tree + "/a/b/two.txt")
        #expect(symlink(outside, tree + "/a/link") == 0)
        // A name that is not UTF-8 (Latin-1 "café").
        let latin1 = Array((tree + "/caf").utf8) + [0xE9] + Array(".json".utf8) + [0]
        let fd = latin1.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        close(fd)
        FileSystem.removeTree(tree)
        #expect(!FileSystem.exists(tree))
        #expect(FileSystem.exists(outside + "/keep.txt"))
        // A missing path is no error.
        FileSystem.removeTree(tree)
        #expect(!FileSystem.exists(tree))
    }
}
