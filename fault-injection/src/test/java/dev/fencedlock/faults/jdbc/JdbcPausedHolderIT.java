package dev.fencedlock.faults.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.db.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A holder stops between reading and writing (a GC pause, a swapped-out process) and its lease
 * expires by the database's clock. Its lease is fixed, so nothing runs for it while it is stopped,
 * as for a paused process. And the case the backend's assumption excludes: the database's clock
 * jumping forward past a live grant.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class JdbcPausedHolderIT {

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aPausedHolderIsSucceededAndItsLateWriteRefused(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase database = Migrations.database(kind);
                LockClient holderClient = JdbcClients.on(database.dataSource(), Duration.ofSeconds(5));
                LockClient successorClient = JdbcClients.on(database.dataSource(), Duration.ofSeconds(5))) {
            String name = "faults:pause:" + kind;
            FencedCounter counter = FencedCounter.create(database.dataSource(), name);
            Lease paused = holderClient.lock(name).acquire(Duration.ofSeconds(10), Duration.ofSeconds(1));
            long read = counter.value();
            CountDownLatch lost = new CountDownLatch(1);
            paused.onLost((lease, cause) -> lost.countDown());

            // the holder is stopped here; the successor waits for the database to expire its grant
            try (Lease successor = successorClient.lock(name).acquire(Duration.ofSeconds(30))) {
                assertThat(paused.isValid())
                        .as("the paused holder's lease when the successor was granted")
                        .isFalse();
                assertThat(successor.token()).isGreaterThan(paused.token());
                assertThat(counter.increment(successor.token())).isTrue();

                // the holder resumes and writes what it computed from its stale read
                assertThat(counter.increment(paused.token()))
                        .as("the paused holder's late write")
                        .isFalse();
                assertThat(counter.value()).isEqualTo(read + 1);
                assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
                paused.close();
                assertThat(successor.isValid())
                        .as("the late close left the successor alone")
                        .isTrue();
            }
        }
    }

    /**
     * What the database-clock assumption excludes, made to happen: the database's clock jumps an
     * hour forward while a lease is held (simulated by moving the grant's end an hour back). The
     * database expires the grant at once and grants a successor while the holder, counting on its
     * own clock, still believes itself valid: two holders believe they hold the lock. The fence is
     * what keeps the data right: the successor's token is larger, the old holder's write after the
     * successor's is refused, and the old holder learns of its loss at its next renewal.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aDatabaseClockJumpBreaksExclusionAndTheFenceStillRefusesTheStaleWrite(TestDatabase.Kind kind)
            throws Exception {
        try (TestDatabase database = Migrations.database(kind);
                LockClient holderClient = JdbcClients.on(database.dataSource(), Duration.ofSeconds(3));
                LockClient successorClient = JdbcClients.on(database.dataSource(), Duration.ofSeconds(3))) {
            String name = "faults:clock-jump:" + kind;
            FencedCounter counter = FencedCounter.create(database.dataSource(), name);
            Lease holder = holderClient.lock(name).acquire(Duration.ofSeconds(10));
            CountDownLatch lost = new CountDownLatch(1);
            holder.onLost((lease, cause) -> lost.countDown());

            database.execute("UPDATE fencedlock_lock SET expires_at = expires_at - 3600000 WHERE lock_name = ?", name);

            try (Lease successor = successorClient.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(holder.isValid())
                        .as("the holder still believes itself valid: the assumption is broken")
                        .isTrue();
                assertThat(successor.token()).isGreaterThan(holder.token());
                assertThat(counter.increment(successor.token())).isTrue();
                assertThat(counter.increment(holder.token()))
                        .as("the stale holder's write")
                        .isFalse();
                assertThat(lost.await(30, TimeUnit.SECONDS))
                        .as("the stale holder learned of its loss at its next renewal")
                        .isTrue();
            }
            holder.close();
        }
    }
}
