#ifndef GRONA_CLINUX_SHIM_H
#define GRONA_CLINUX_SHIM_H
/// epoll, eventfd and the GNU socket and thread extensions for the Linux event loop; Glibc's Swift module
/// does not export them because it is built without _GNU_SOURCE.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <pthread.h>
#include <poll.h>
#include <time.h>
#include <errno.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);

static inline int grona_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}

static inline int grona_set_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

/// Sets the calling thread's nice value. On Linux it is a per-thread attribute, and `who` 0 names the calling
/// thread (setpriority(2), NOTES); the C wrapper avoids glibc's `__priority_which_t` in Swift.
static inline int grona_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, 0, nice);
}

/// Gives the pages glibc's malloc holds free back to the kernel, in every arena (malloc_trim(3); glibc 2.8
/// madvises the free pages of each arena, not only the top of the main heap). 0 elsewhere: other allocators
/// return memory on their own terms.
static inline int grona_return_free_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}

/// A timeout in whole milliseconds rounded up, for the calls that take no finer one: rounding down would turn a
/// wait of less than a millisecond into a busy loop.
static inline int grona_milliseconds_rounded_up(long long nanoseconds) {
    long long milliseconds = nanoseconds / 1000000LL + (nanoseconds % 1000000LL != 0);
    return milliseconds > INT_MAX ? INT_MAX : (int)milliseconds;
}

/// epoll_wait with a timeout in nanoseconds: epoll_pwait2 (Linux 5.11, glibc 2.35) where there is one, else
/// epoll_wait rounded up to the next millisecond.
static inline int grona_epoll_wait_nanoseconds(int fd, struct epoll_event *events, int count, long long nanoseconds) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
    struct timespec timeout = { (time_t)(nanoseconds / 1000000000LL), (long)(nanoseconds % 1000000000LL) };
    int ready = epoll_pwait2(fd, events, count, &timeout, NULL);
    if (ready >= 0 || errno != ENOSYS) return ready;
#endif
    return epoll_wait(fd, events, count, grona_milliseconds_rounded_up(nanoseconds));
}

/// poll(2)'s POLLRDHUP (Linux 2.6.17): the peer finished sending. <poll.h> defines it only with _GNU_SOURCE.
#ifdef POLLRDHUP
#define GRONA_POLLRDHUP POLLRDHUP
#else
#define GRONA_POLLRDHUP 0x2000
#endif

extern int ppoll(struct pollfd *descriptors, nfds_t count, const struct timespec *timeout, const sigset_t *mask);

/// poll with a timeout in nanoseconds (ppoll).
static inline int grona_poll_nanoseconds(struct pollfd *descriptors, nfds_t count, long long nanoseconds) {
    struct timespec timeout = { (time_t)(nanoseconds / 1000000000LL), (long)(nanoseconds % 1000000000LL) };
    return ppoll(descriptors, count, &timeout, NULL);
}

/// Asks the kernel to stamp each packet a socket receives (socket(7), SO_TIMESTAMPNS).
static inline int grona_enable_receive_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

/// recv, and in `arrival` the kernel's stamp (CLOCK_REALTIME nanoseconds) of the last data read: for TCP the
/// packet that brought it (tcp(7)). 0 when the read carried no stamp (none asked, or nothing read).
static inline long grona_receive_stamped(int fd, void *buffer, unsigned long length, long long *arrival) {
    char control[CMSG_SPACE(sizeof(struct timespec))];
    struct iovec vector = { buffer, length };
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    *arrival = 0;
    long count = recvmsg(fd, &message, 0);
    if (count <= 0) return count;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec stamp;
            memcpy(&stamp, CMSG_DATA(header), sizeof stamp);
            *arrival = (long long)stamp.tv_sec * 1000000000LL + stamp.tv_nsec;
        }
    }
    return count;
}
#endif
#endif
