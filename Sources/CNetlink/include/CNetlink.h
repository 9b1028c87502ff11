// The Linux rtnetlink ABI for NetReachability. Glibc's Swift module does not import these
// headers, and their function-like macros (NLMSG_*, RTA_*) do not import at all, so this shim
// re-exports the numbers NetReachability needs as typed constants. The include order matters:
// glibc's <net/if.h> before the kernel's <linux/if.h>.
#ifndef C_NETLINK_H
#define C_NETLINK_H

#ifdef __linux__
#include <stdint.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// The calling thread's id, as /proc/self/task lists it: syscall is variadic, so Swift cannot call it.
static inline int cnl_thread_id(void) {
    return (int)syscall(SYS_gettid);
}

// Names the calling thread (at most 15 bytes): prctl is variadic, so Swift cannot call it.
static inline int cnl_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

static const uint16_t CNL_NLMSG_ERROR = NLMSG_ERROR;
static const uint16_t CNL_NLMSG_DONE = NLMSG_DONE;
static const uint16_t CNL_NLMSG_OVERRUN = NLMSG_OVERRUN;
static const uint16_t CNL_NLM_F_REQUEST = NLM_F_REQUEST;
static const uint16_t CNL_NLM_F_DUMP = NLM_F_DUMP;
static const uint16_t CNL_NLM_F_DUMP_INTR = NLM_F_DUMP_INTR;

static const uint16_t CNL_RTM_NEWLINK = RTM_NEWLINK;
static const uint16_t CNL_RTM_DELLINK = RTM_DELLINK;
static const uint16_t CNL_RTM_GETLINK = RTM_GETLINK;
static const uint16_t CNL_RTM_NEWADDR = RTM_NEWADDR;
static const uint16_t CNL_RTM_DELADDR = RTM_DELADDR;
static const uint16_t CNL_RTM_GETADDR = RTM_GETADDR;
static const uint16_t CNL_RTM_NEWROUTE = RTM_NEWROUTE;
static const uint16_t CNL_RTM_DELROUTE = RTM_DELROUTE;
static const uint16_t CNL_RTM_GETROUTE = RTM_GETROUTE;

static const uint32_t CNL_RTMGRP_LINK = RTMGRP_LINK;
static const uint32_t CNL_RTMGRP_IPV4_IFADDR = RTMGRP_IPV4_IFADDR;
static const uint32_t CNL_RTMGRP_IPV6_IFADDR = RTMGRP_IPV6_IFADDR;
static const uint32_t CNL_RTMGRP_IPV4_ROUTE = RTMGRP_IPV4_ROUTE;
static const uint32_t CNL_RTMGRP_IPV6_ROUTE = RTMGRP_IPV6_ROUTE;

static const uint16_t CNL_IFLA_IFNAME = IFLA_IFNAME;
static const uint16_t CNL_IFLA_LINKINFO = IFLA_LINKINFO;
static const uint16_t CNL_IFLA_INFO_KIND = IFLA_INFO_KIND;
static const uint16_t CNL_IFA_ADDRESS = IFA_ADDRESS;
static const uint16_t CNL_IFA_LOCAL = IFA_LOCAL;
static const uint16_t CNL_IFA_FLAGS = IFA_FLAGS;
static const uint16_t CNL_RTA_OIF = RTA_OIF;
static const uint16_t CNL_RTA_GATEWAY = RTA_GATEWAY;
static const uint16_t CNL_RTA_PRIORITY = RTA_PRIORITY;
static const uint16_t CNL_RTA_MULTIPATH = RTA_MULTIPATH;
static const uint16_t CNL_RTA_TABLE = RTA_TABLE;
static const uint16_t CNL_NLA_TYPE_MASK = (uint16_t)NLA_TYPE_MASK;  // ~(NESTED | NET_BYTEORDER) as an int

static const uint32_t CNL_IFF_UP = IFF_UP;
static const uint32_t CNL_IFF_RUNNING = IFF_RUNNING;
static const uint32_t CNL_IFF_LOOPBACK = IFF_LOOPBACK;
static const uint32_t CNL_IFA_F_TENTATIVE = IFA_F_TENTATIVE;
static const uint32_t CNL_IFA_F_DADFAILED = IFA_F_DADFAILED;
static const uint16_t CNL_ARPHRD_ETHER = ARPHRD_ETHER;
static const uint16_t CNL_ARPHRD_LOOPBACK = ARPHRD_LOOPBACK;
static const uint8_t CNL_RT_TABLE_MAIN = RT_TABLE_MAIN;
static const uint8_t CNL_RTN_UNICAST = RTN_UNICAST;
static const uint8_t CNL_RT_SCOPE_UNIVERSE = RT_SCOPE_UNIVERSE;

static const int CNL_NETLINK_ROUTE = NETLINK_ROUTE;
static const int CNL_EFD_CLOEXEC = EFD_CLOEXEC;

static const int CNL_SIZEOF_NLMSGHDR = sizeof(struct nlmsghdr);
static const int CNL_SIZEOF_IFINFOMSG = sizeof(struct ifinfomsg);
static const int CNL_SIZEOF_IFADDRMSG = sizeof(struct ifaddrmsg);
static const int CNL_SIZEOF_RTMSG = sizeof(struct rtmsg);
static const int CNL_SIZEOF_RTATTR = sizeof(struct rtattr);
static const int CNL_SIZEOF_RTNEXTHOP = sizeof(struct rtnexthop);
#endif

#endif
