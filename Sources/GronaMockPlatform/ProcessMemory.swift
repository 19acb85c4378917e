import GronaMockCLinux

/// What the process gives back to the kernel after a large piece of work.
///
/// glibc's malloc keeps the memory freed by a thread in that thread's arena for the next allocation, and only
/// the top of an arena returns to the kernel on its own; the small blocks of a large answer (a million rows
/// checked, hundreds of thousands of violations) leave free pages scattered through the arenas, so the
/// server's resident memory stayed at 752 MB after a 990 MB peak (issue 32). `returnFreeMemory` asks glibc to
/// give those pages back (malloc_trim(3)), which costs a walk of the arenas: a few milliseconds, worth it only
/// after work of that size, never per request.
package enum ProcessMemory {
    /// Returns the free pages of malloc's arenas to the kernel; does nothing outside glibc.
    package static func returnFreeMemory() {
        _ = grona_return_free_memory()
    }
}
