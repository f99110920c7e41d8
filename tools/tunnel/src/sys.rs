//! The sockets and ioctls: the only glue a user writes around the library.

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Linux `SOL_UDP` / `UDP_SEGMENT` (not in libc's glibc module).
const SOL_UDP: libc::c_int = 17;
const UDP_SEGMENT: libc::c_int = 103;

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn check_len(ret: isize) -> io::Result<usize> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret as usize)
    }
}

/// What the TUN device was opened with.
pub struct Tun {
    pub fd: OwnedFd,
    /// USO4/USO6 accepted (kernel 6.2+).
    pub uso: bool,
}

/// Opens (or attaches to) the L3 TUN `name`. With `vnet` the offloads are
/// IFF_VNET_HDR with a 10-byte header and CSUM|TSO4|TSO6 (+USO4|USO6 when
/// accepted); without, every offload a previous user left is cleared.
pub fn open_tun(name: &str, vnet: bool, hdr_len: usize) -> io::Result<Tun> {
    // SAFETY: plain open(2) of a NUL-terminated path.
    let raw =
        check(unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) })?;
    // SAFETY: raw is a fresh fd we own.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: ifreq is plain data; all-zero is valid.
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    let bytes = name.as_bytes();
    if bytes.len() >= ifr.ifr_name.len() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "name too long"));
    }
    for (d, s) in ifr.ifr_name.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    let mut flags = libc::IFF_TUN | libc::IFF_NO_PI;
    if vnet {
        flags |= libc::IFF_VNET_HDR;
    }
    ifr.ifr_ifru.ifru_flags = flags as libc::c_short;
    // SAFETY: TUNSETIFF reads and writes an ifreq we own.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut ifr) })?;
    let mut uso = false;
    if vnet {
        let size: libc::c_int = hdr_len as libc::c_int;
        // SAFETY: TUNSETVNETHDRSZ reads an int.
        check(unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETVNETHDRSZ, &size) })?;
        let base = libc::TUN_F_CSUM | libc::TUN_F_TSO4 | libc::TUN_F_TSO6;
        let with_uso = base | libc::TUN_F_USO4 | libc::TUN_F_USO6;
        // SAFETY: TUNSETOFFLOAD takes the flags as the argument value.
        if unsafe {
            libc::ioctl(
                fd.as_raw_fd(),
                libc::TUNSETOFFLOAD,
                with_uso as libc::c_ulong,
            )
        } == 0
        {
            uso = true;
        } else {
            // SAFETY: as above.
            check(unsafe {
                libc::ioctl(fd.as_raw_fd(), libc::TUNSETOFFLOAD, base as libc::c_ulong)
            })?;
        }
    } else {
        // SAFETY: as above; 0 clears what a previous user of a persistent TUN set.
        check(unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETOFFLOAD, 0 as libc::c_ulong) })?;
    }
    Ok(Tun { fd, uso })
}

pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: buf is valid for buf.len() bytes.
    check_len(unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) })
}

/// One write of the given parts (a virtio header and the packet).
pub fn writev(fd: RawFd, parts: &[&[u8]]) -> io::Result<usize> {
    let iov: Vec<libc::iovec> = parts
        .iter()
        .map(|p| libc::iovec {
            iov_base: p.as_ptr() as *mut _,
            iov_len: p.len(),
        })
        .collect();
    // SAFETY: each iovec points into a live slice.
    check_len(unsafe { libc::writev(fd, iov.as_ptr(), iov.len() as libc::c_int) })
}

fn sockaddr(addr: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: sockaddr_storage is plain data; all-zero is valid.
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match addr {
        SocketAddr::V4(a) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: a.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(a.ip().octets()),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_in fits in sockaddr_storage.
            unsafe { std::ptr::write((&mut ss as *mut libc::sockaddr_storage).cast(), sin) };
            size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(a) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: a.port().to_be(),
                sin6_flowinfo: 0,
                sin6_addr: libc::in6_addr {
                    s6_addr: a.ip().octets(),
                },
                sin6_scope_id: a.scope_id(),
            };
            // SAFETY: sockaddr_in6 fits in sockaddr_storage.
            unsafe { std::ptr::write((&mut ss as *mut libc::sockaddr_storage).cast(), sin6) };
            size_of::<libc::sockaddr_in6>()
        }
    };
    (ss, len as libc::socklen_t)
}

/// A UDP socket bound to `local` and connected to `peer`, with big buffers.
pub fn udp_socket(local: SocketAddr, peer: SocketAddr) -> io::Result<OwnedFd> {
    let family = if local.is_ipv4() {
        libc::AF_INET
    } else {
        libc::AF_INET6
    };
    // SAFETY: socket(2).
    let raw = check(unsafe { libc::socket(family, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: a fresh fd we own.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let size: libc::c_int = 8 << 20;
    for opt in [libc::SO_SNDBUFFORCE, libc::SO_RCVBUFFORCE] {
        // SAFETY: setsockopt with an int.
        unsafe {
            libc::setsockopt(
                raw,
                libc::SOL_SOCKET,
                opt,
                (&size as *const libc::c_int).cast(),
                size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
    }
    let (ss, len) = sockaddr(&local);
    // SAFETY: ss holds a valid address of len bytes.
    check(unsafe { libc::bind(raw, (&ss as *const libc::sockaddr_storage).cast(), len) })?;
    let (ss, len) = sockaddr(&peer);
    // SAFETY: as above.
    check(unsafe { libc::connect(raw, (&ss as *const libc::sockaddr_storage).cast(), len) })?;
    Ok(fd)
}

/// One datagram on the connected socket.
pub fn send(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: buf is valid for its length.
    check_len(unsafe { libc::send(fd, buf.as_ptr().cast(), buf.len(), 0) })
}

/// One `sendmsg` with `UDP_SEGMENT = stride`: the kernel cuts `buf` into
/// datagrams of `stride` bytes (the last may be shorter).
pub fn send_gso(fd: RawFd, buf: &[u8], stride: u16) -> io::Result<usize> {
    let mut iov = libc::iovec {
        iov_base: buf.as_ptr() as *mut _,
        iov_len: buf.len(),
    };
    // SAFETY: CMSG_SPACE is a pure computation.
    let space = unsafe { libc::CMSG_SPACE(size_of::<u16>() as u32) } as usize;
    let mut control = [0u64; 4];
    // SAFETY: msghdr is plain data; all-zero is valid.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: the control buffer holds one cmsg of CMSG_SPACE(2) bytes.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = SOL_UDP;
        (*cmsg).cmsg_type = UDP_SEGMENT;
        (*cmsg).cmsg_len = libc::CMSG_LEN(size_of::<u16>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<u16>(), stride);
    }
    // SAFETY: msg points at live buffers.
    check_len(unsafe { libc::sendmsg(fd, &msg, 0) })
}

/// `sendmmsg` of the given datagrams (the fallback without UDP GSO); returns
/// how many were sent.
pub fn send_many(fd: RawFd, dgrams: &[&[u8]]) -> io::Result<usize> {
    let mut iovs: Vec<libc::iovec> = dgrams
        .iter()
        .map(|d| libc::iovec {
            iov_base: d.as_ptr() as *mut _,
            iov_len: d.len(),
        })
        .collect();
    let mut msgs: Vec<libc::mmsghdr> = iovs
        .iter_mut()
        .map(|iov| {
            // SAFETY: mmsghdr is plain data; all-zero is valid.
            let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
            m.msg_hdr.msg_iov = iov;
            m.msg_hdr.msg_iovlen = 1;
            m
        })
        .collect();
    let mut sent = 0;
    while sent < msgs.len() {
        // SAFETY: every msghdr points at a live iovec and slice.
        let n = check(unsafe {
            libc::sendmmsg(
                fd,
                msgs[sent..].as_mut_ptr(),
                (msgs.len() - sent) as libc::c_uint,
                0,
            )
        })?;
        sent += n as usize;
    }
    Ok(sent)
}

/// Receive buffers for `recvmmsg`.
pub struct RecvBatch {
    pub bufs: Vec<Vec<u8>>,
    pub lens: Vec<usize>,
}

impl RecvBatch {
    pub fn new(count: usize, size: usize) -> RecvBatch {
        RecvBatch {
            bufs: vec![vec![0u8; size]; count],
            lens: vec![0; count],
        }
    }

    /// Blocks for at least one datagram, takes what is queued; returns how many.
    pub fn recv(&mut self, fd: RawFd) -> io::Result<usize> {
        let mut iovs: Vec<libc::iovec> = self
            .bufs
            .iter_mut()
            .map(|b| libc::iovec {
                iov_base: b.as_mut_ptr().cast(),
                iov_len: b.len(),
            })
            .collect();
        let mut msgs: Vec<libc::mmsghdr> = iovs
            .iter_mut()
            .map(|iov| {
                // SAFETY: mmsghdr is plain data; all-zero is valid.
                let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
                m.msg_hdr.msg_iov = iov;
                m.msg_hdr.msg_iovlen = 1;
                m
            })
            .collect();
        // SAFETY: every msghdr points at a live buffer.
        let n = check(unsafe {
            libc::recvmmsg(
                fd,
                msgs.as_mut_ptr(),
                msgs.len() as libc::c_uint,
                libc::MSG_WAITFORONE,
                std::ptr::null_mut(),
            )
        })? as usize;
        for (len, m) in self.lens.iter_mut().zip(&msgs).take(n) {
            *len = m.msg_len as usize;
        }
        Ok(n)
    }

    /// Datagram `i` of the last batch.
    pub fn frame(&self, i: usize) -> Option<&[u8]> {
        self.bufs.get(i)?.get(..*self.lens.get(i)?)
    }
}
