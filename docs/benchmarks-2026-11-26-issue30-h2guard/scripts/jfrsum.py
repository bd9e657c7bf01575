#!/usr/bin/env python3
"""Summarise jdk.ExecutionSample stacks of a JFR file: inclusive share of key frames among the
samples of the benchmark thread (those with a frame matching --root)."""
import argparse
import collections
from jfrstacks import load

ap = argparse.ArgumentParser()
ap.add_argument('jfr')
ap.add_argument('--root', default='UpdateBenchmark.update')
ap.add_argument('--frames', nargs='*', default=[])
ap.add_argument('--top-self', type=int, default=25)
ap.add_argument('--under', default=None, help='self-time top list restricted to samples containing this frame')
a = ap.parse_args()

samples = load(a.jfr)
bench = [st for st in samples if any(a.root in f for f in st)]
n = len(bench)
print(f'samples: {len(samples)} total, {n} on the benchmark ({a.root})')
default = [
 'FencedUpdateBenchmark.update', 'VersionedUpdateBenchmark.update',
 'H2SessionMarks.lockHolding', 'H2FenceRows.lockHolding', 'MVTable.lockRow', 'Update.update',
 'JdbcPreparedStatement.set', 'H2SessionMarks.fencedOrBypassed', 'H2FenceRows.heldBy', 'H2FenceTrigger.queryMarks',
 'TransactionImpl.commit', 'TransactionImpl.begin', 'SessionImpl.find', 'SessionImpl.close', 'JdbcConnection.rollback',
 'HikariDataSource.getConnection', 'ProxyConnection.close',
 'TransactionGuard.afterBegin', 'FenceGuard.enter', 'FenceGuard.checked', 'FenceTableShape.check',
 'H2Fence.raiseIfNotAbove', 'GuardStatements.plainUpdate', 'JdbcConnection.prepareStatement',
 'JdbcPreparedStatement.executeUpdate', 'H2Fence.mark', 'H2SessionMarks.isEmbedded',
 'H2FenceTrigger.fire', 'FencedWriteInspector.inspect', 'SessionStatements.', 'Stamping.',
 'FencingListener.', 'TransactionGuard.beforeCompletion', 'TransactionGuard.afterCompletion',
 'TransactionGuard.beforeRelease', 'FenceGuard.afterCompletion', 'Fencing.bind', 'FencingScope.close',
 'LeaseBinding', 'FencedTransactions.', 'isValid', 'JdbcConnection.commit', 'Transaction.commit',
 'SessionLocal.startStatementWithinTransaction', 'Command.executeUpdate', 'Command.executeQuery',
 'AbstractFlushingEventListener', 'DefaultLoadEventListener', 'getMetaData',
]
for f in (a.frames or default):
    c = sum(1 for st in bench if any(f in x for x in st))
    print(f'{100.0*c/max(n,1):6.1f}%  {c:6d}  {f}')
sel = bench if not a.under else [st for st in bench if any(a.under in x for x in st)]
selfc = collections.Counter(st[0] for st in sel if st)
print(f'\ntop self frames{" under " + a.under if a.under else ""} ({len(sel)} samples):')
for f, c in selfc.most_common(a.top_self):
    print(f'{100.0*c/max(n,1):6.1f}%  {c:6d}  {f}')
