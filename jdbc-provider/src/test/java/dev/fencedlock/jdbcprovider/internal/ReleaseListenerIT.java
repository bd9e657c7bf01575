package dev.fencedlock.jdbcprovider.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** On PostgreSQL, a {@code NOTIFY} from any connection wakes a waiter of the key it names. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReleaseListenerIT {

    @Test
    void aNotifyFromAnotherConnectionWakesTheWaitersOfItsKeyAndNoOthers() throws Exception {
        try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL, "jdbclock", 4)
                .migrate(JdbcLockSettings.MIGRATION_LOCATION)) {
            LockTable table = new PostgreSqlLockTable("fencedlock_lock");
            ReleaseSignals signals = new ReleaseSignals();
            String key = LockKeys.rowKey("listened");
            try (ReleaseListener listener = ReleaseListener.start(database.dataSource(), table, signals);
                    ReleaseSignals.Ticket ticket = signals.ticket(LockTable.signalKey(table.table(), key));
                    ReleaseSignals.Ticket other =
                            signals.ticket(LockTable.signalKey(table.table(), LockKeys.rowKey("other")))) {
                Await.until("listening", Duration.ofSeconds(30), listener::listening);
                // the listener wakes a waiter of every key once it starts listening; consume that wake-up
                ticket.await(0);
                other.await(0);

                database.queryLong("SELECT 1 FROM (SELECT pg_notify('fencedlock_lock', ?)) AS n", key);

                assertThat(ticket.await(TimeUnit.SECONDS.toNanos(30)))
                        .as("woken by the notification")
                        .isTrue();
                assertThat(other.await(TimeUnit.MILLISECONDS.toNanos(200)))
                        .as("another key's waiter")
                        .isFalse();
            }
        }
    }
}
