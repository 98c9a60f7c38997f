#!/usr/bin/env python3
"""Write the tshark reference decode (CAPTURE.ops.tsv) of an NFSv4 or SMB2 capture.

usage: tshark-ops.py CAPTURE --proto NFSv4|SMB2 [--nfs-port PORT] > CAPTURE.ops.tsv

Columns as in the reference decodes beside the bundled samples:
frame time_epoch src_port dst_port id op name status proto dir detail.
One row per NFSv4 operation inside a COMPOUND call or reply (id = RPC xid,
status = that operation's nfsstat4) and one per SMB2 request or response
(id = MessageId, status = NT status).  `detail` carries what a byte-range lock
test needs: lock type, offset, length and a hash of the stateid (NFSv4), the
FileId, lock flags, offset and length (SMB2).  Written for the captures that
tests/nfs4/make-lock-capture.sh and tests/smb/make-smb2-lock-capture.sh make;
tshark -T fields joins repeated fields with ',', and each of those COMPOUNDs
holds at most one lock operation, each SMB2 frame one PDU.
"""
import argparse
import subprocess
import sys

# RFC 7530 §16 / RFC 8881 §18 operation numbers.
NFS4_OPS = {
    3: 'ACCESS', 4: 'CLOSE', 5: 'COMMIT', 6: 'CREATE', 7: 'DELEGPURGE', 8: 'DELEGRETURN', 9: 'GETATTR',
    10: 'GETFH', 11: 'LINK', 12: 'LOCK', 13: 'LOCKT', 14: 'LOCKU', 15: 'LOOKUP', 16: 'LOOKUPP',
    17: 'NVERIFY', 18: 'OPEN', 19: 'OPENATTR', 20: 'OPEN_CONFIRM', 21: 'OPEN_DOWNGRADE', 22: 'PUTFH',
    23: 'PUTPUBFH', 24: 'PUTROOTFH', 25: 'READ', 26: 'READDIR', 27: 'READLINK', 28: 'REMOVE', 29: 'RENAME',
    30: 'RENEW', 31: 'RESTOREFH', 32: 'SAVEFH', 33: 'SECINFO', 34: 'SETATTR', 35: 'SETCLIENTID',
    36: 'SETCLIENTID_CONFIRM', 37: 'VERIFY', 38: 'WRITE', 39: 'RELEASE_LOCKOWNER',
}
# RFC 7530 §13 error numbers met in these captures (others print as the bare number).
NFS4_STATUS = {0: 'NFS4_OK', 2: 'NFS4ERR_NOENT', 10010: 'NFS4ERR_DENIED', 10024: 'NFS4ERR_OLD_STATEID',
               10025: 'NFS4ERR_BAD_STATEID', 10026: 'NFS4ERR_BAD_SEQID', 10037: 'NFS4ERR_LOCK_RANGE'}
# MS-SMB2 §2.2.1 command codes.
SMB2_CMDS = ['NEGOTIATE', 'SESSION_SETUP', 'LOGOFF', 'TREE_CONNECT', 'TREE_DISCONNECT', 'CREATE', 'CLOSE',
             'FLUSH', 'READ', 'WRITE', 'LOCK', 'IOCTL', 'CANCEL', 'ECHO', 'QUERY_DIRECTORY', 'CHANGE_NOTIFY',
             'QUERY_INFO', 'SET_INFO', 'OPLOCK_BREAK']

HEADER = ['frame', 'time_epoch', 'src_port', 'dst_port', 'id', 'op', 'name', 'status', 'proto', 'dir', 'detail']


def tshark(capture, fields, dfilter, extra):
    cmd = ['tshark', '-r', capture, '-n', '-T', 'fields', '-E', 'separator=\t', '-E', 'occurrence=a',
           '-E', 'aggregator=,', '-Y', dfilter] + extra
    for f in fields:
        cmd += ['-e', f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        yield dict(zip(fields, line.split('\t')))


def split(v):
    return v.split(',') if v else []


NFS4_FIELDS = ['frame.number', 'frame.time_epoch', 'tcp.srcport', 'tcp.dstport', 'rpc.xid', 'rpc.msgtyp',
               'nfs.minorversion', 'nfs.opcode', 'nfs.nfsstat4', 'nfs.pathname.component', 'nfs.locktype4',
               'nfs.offset4', 'nfs.length4', 'nfs.stateid.other_hash', 'nfs.lock.locker.new_lock_owner']


def nfs4_rows(capture, port):
    extra = ['-d', 'tcp.port==%d,rpc' % port] if port else []
    minor = {}
    for f in tshark(capture, NFS4_FIELDS, 'nfs', extra):
        call = f['rpc.msgtyp'] == '0'
        xid = f['rpc.xid']
        ops = [int(o) for o in split(f['nfs.opcode'])]
        base = [f['frame.number'], f['frame.time_epoch'], f['tcp.srcport'], f['tcp.dstport'], xid]
        if not ops:  # NULL
            yield base + ['NULL', '', '', 'NFSv4', 'call' if call else 'reply', '']
            continue
        if call:
            minor[xid] = f['nfs.minorversion'] or '0'
        proto = 'NFSv4.' + minor.get(xid, '0')
        st = split(f['nfs.nfsstat4'])[1:]  # the first is the COMPOUND's own status
        names = split(f['nfs.pathname.component'])
        lock = []
        for key, field in (('type', 'nfs.locktype4'), ('off', 'nfs.offset4'), ('len', 'nfs.length4'),
                           ('stateid', 'nfs.stateid.other_hash'), ('new_owner', 'nfs.lock.locker.new_lock_owner')):
            if f[field]:
                lock.append('%s=%s' % (key, f[field]))
        for i, op in enumerate(ops):
            name = NFS4_OPS.get(op, str(op))
            status = ''
            if not call and i < len(st):
                code = int(st[i])
                status = '%s(%d)' % (NFS4_STATUS.get(code, 'nfsstat4'), code)
            fname = names[0] if name in ('LOOKUP', 'OPEN') and call and names else ''
            detail = ['op=%d/%d' % (i + 1, len(ops))]
            # Lock fields belong to the lock op (a denied reply's are the conflicting lock's, §16.10.4).
            if name in ('LOCK', 'LOCKT', 'LOCKU'):
                detail += lock
            yield base + [name, fname, status, proto, 'call' if call else 'reply', ','.join(detail)]


SMB2_FIELDS = ['frame.number', 'frame.time_epoch', 'tcp.srcport', 'tcp.dstport', 'smb2.msg_id', 'smb2.cmd',
               'smb2.flags.response', 'smb2.nt_status', 'smb2.filename', 'smb2.sesid', 'smb2.tid', 'smb2.fid',
               'smb2.lock_flags', 'smb2.file_offset', 'smb2.lock_length', 'smb2.lock_count']


def smb2_rows(capture):
    for f in tshark(capture, SMB2_FIELDS, 'smb2', []):
        cmds = split(f['smb2.cmd'])
        if len(cmds) != 1:
            sys.exit('tshark-ops.py: frame %s holds %d SMB2 PDUs; this script handles one' %
                     (f['frame.number'], len(cmds)))
        cmd = int(cmds[0])
        resp = f['smb2.flags.response'] in ('1', 'True')
        detail = ['sesid=%s' % f['smb2.sesid'], 'tid=%s' % f['smb2.tid']]
        if f['smb2.fid']:
            detail.append('fid=%s' % f['smb2.fid'])
        if cmd == 10 and not resp:
            detail += ['lock_count=%s' % f['smb2.lock_count'], 'flags=%s' % f['smb2.lock_flags'],
                       'off=%s' % f['smb2.file_offset'], 'len=%s' % f['smb2.lock_length']]
        status = ''
        if resp:
            status = '0x%08x' % int(f['smb2.nt_status'], 0)
        yield [f['frame.number'], f['frame.time_epoch'], f['tcp.srcport'], f['tcp.dstport'], f['smb2.msg_id'],
               SMB2_CMDS[cmd] if cmd < len(SMB2_CMDS) else str(cmd), f['smb2.filename'], status, 'SMB2',
               'resp' if resp else 'req', ','.join(detail)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('capture')
    ap.add_argument('--proto', choices=['NFSv4', 'SMB2'], required=True)
    ap.add_argument('--nfs-port', type=int, help='decode this TCP port as ONC RPC (NFS off port 2049)')
    args = ap.parse_args()
    rows = nfs4_rows(args.capture, args.nfs_port) if args.proto == 'NFSv4' else smb2_rows(args.capture)
    print('\t'.join(HEADER))
    for r in rows:
        print('\t'.join(r))
    return 0


if __name__ == '__main__':
    sys.exit(main())
