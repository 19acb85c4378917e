#ifndef GRONA_CLINUX_SHIM_H
#define GRONA_CLINUX_SHIM_H
/// epoll, eventfd and the GNU socket and thread extensions for the Linux event loop; Glibc's Swift module
/// does not export them because it is built without _GNU_SOURCE.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <pthread.h>

extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);

static inline int grona_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}

static inline int grona_set_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
#endif
#endif
