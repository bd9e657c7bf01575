package dev.fencedlock.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class ConcurrencyFailuresTest {

    @Test
    void recognisesEachDatabasesConcurrencyFailures() {
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("serialization", "40001")))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("pg deadlock", "40P01")))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("pg lock timeout", "55P03")))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("mariadb lock wait", "HY000", 1205)))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("mariadb deadlock", "40001", 1213)))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("h2 lock timeout", "HYT00", 50200)))
                .isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("h2 concurrent update", "90131", 90131)))
                .isTrue();
    }

    @Test
    void looksThroughCausesAndNextExceptions() {
        SQLException batch = new SQLException("batch failed", "22000");
        batch.setNextException(new SQLException("deadlock", "40P01"));
        assertThat(ConcurrencyFailures.isConcurrencyFailure(batch)).isTrue();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(
                        new IllegalStateException(new SQLException("timeout", "55P03"))))
                .isTrue();
    }

    @Test
    void passesOtherFailures() {
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("syntax", "42000")))
                .isFalse();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("unique", "23505")))
                .isFalse();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new SQLException("no state")))
                .isFalse();
        assertThat(ConcurrencyFailures.isConcurrencyFailure(new IllegalStateException("plain")))
                .isFalse();
    }
}
