package dev.fencedlock.faults.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The database server holding the lock table restarts while a lease is held. The shared
 * PostgreSQL and MariaDB servers cannot be restarted by a test, so an H2 TCP server on a file
 * database stands in: every connection breaks, and the data survives (or, in the last case, does
 * not).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class JdbcDatabaseRestartIT {

    /** Back before the lease's validity ran out: renewals resume and the holder never lost the lock. */
    @Test
    void aQuickRestartIsRiddenOutByRenewals() throws Exception {
        try (H2TcpDatabase database = H2TcpDatabase.start();
                LockClient holderClient = JdbcClients.at(database.url(), "sa", "", Duration.ofSeconds(10));
                LockClient contender = JdbcClients.at(database.url(), "sa", "", Duration.ofSeconds(10))) {
            Lease holder = holderClient.lock("faults:restart:quick").acquire(Duration.ofSeconds(10));
            AtomicInteger losses = new AtomicInteger();
            holder.onLost((lease, cause) -> losses.incrementAndGet());

            database.stop();
            // down past a renewal (every 3.3 s), back well within the validity; the H2 client
            // retries a refused connect for about 1.4 s, so each failed renewal takes that long
            Thread.sleep(4_000);
            database.restart();

            // had renewals not resumed, the grant would expire within one lease of the restart
            assertThat(contender.lock("faults:restart:quick").tryAcquire(Duration.ofSeconds(11)))
                    .as("a contender for more than a lease length after the restart")
                    .isEmpty();
            assertThat(holder.isValid()).isTrue();
            assertThat(losses.get()).isZero();
            holder.close();
        }
    }

    /**
     * Down for longer than the lease: the holder's lease runs out and it is told; after the
     * restart the row (kept on disk) shows the grant expired by the database's clock, the successor
     * is granted it with a larger token, and the old holder's late write is refused.
     */
    @Test
    void aLongOutageEndsTheLeaseAndTheSuccessorTokenIsLarger() throws Exception {
        try (H2TcpDatabase database = H2TcpDatabase.start();
                LockClient holderClient = JdbcClients.at(database.url(), "sa", "", Duration.ofSeconds(2));
                LockClient successorClient = JdbcClients.at(database.url(), "sa", "", Duration.ofSeconds(2))) {
            FencedCounter counter = FencedCounter.create(database.dataSource(), "faults:restart:long");
            Lease holder = holderClient.lock("faults:restart:long").acquire(Duration.ofSeconds(10));
            CountDownLatch lost = new CountDownLatch(1);
            holder.onLost((lease, cause) -> lost.countDown());

            database.stop();
            assertThat(lost.await(30, TimeUnit.SECONDS))
                    .as("the holder was told of its loss while the database was down")
                    .isTrue();
            database.restart();

            try (Lease successor = successorClient.lock("faults:restart:long").acquire(Duration.ofSeconds(30))) {
                assertThat(holder.isValid()).isFalse();
                assertThat(successor.token()).isGreaterThan(holder.token());
                assertThat(counter.increment(successor.token())).isTrue();
                assertThat(counter.increment(holder.token()))
                        .as("the old holder's late write")
                        .isFalse();
            }
            holder.close();
        }
    }

    /**
     * The database comes back without the lock table's rows (restored from an old backup, or
     * recreated). The token rule's clock floor ({@code token >= now << 16}) still puts the next
     * token above every earlier one, provided the database's clock did not go back: the assumption
     * this case rests on.
     */
    @Test
    void aRestartThatLostTheRowsStillIssuesALargerToken() throws Exception {
        try (H2TcpDatabase database = H2TcpDatabase.start();
                LockClient client = JdbcClients.at(database.url(), "sa", "", Duration.ofSeconds(2))) {
            long before;
            try (Lease lease = client.lock("faults:restart:wiped").acquire(Duration.ofSeconds(10))) {
                before = lease.token();
            }
            database.stop();
            database.restartEmpty();
            try (Lease lease = client.lock("faults:restart:wiped").acquire(Duration.ofSeconds(30))) {
                assertThat(lease.token()).isGreaterThan(before);
            }
        }
    }
}
