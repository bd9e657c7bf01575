package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.jdbc.StaleTokenException;
import dev.fencedlock.jpa.StaleFencingTokenException.Reason;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.RollbackException;
import org.junit.jupiter.api.Test;

class StaleFencingTokenExceptionTest {

    @Test
    void carriesTheFactsOfTheRefusalInItsMessage() {
        Object entity = new Object();
        StaleFencingTokenException stale =
                new StaleFencingTokenException(Reason.NEWER_TOKEN_READ, "stock", entity, "Item", 5, 6L, "detail", null);
        assertThat(stale)
                .isInstanceOf(OptimisticLockException.class)
                .hasMessage(
                        "Fenced write refused (NEWER_TOKEN_READ): lock 'stock', token 5, newer token 6, entity Item:"
                                + " detail");
        assertThat(stale.getEntity()).isSameAs(entity);
        assertThat(stale.reason()).isEqualTo(Reason.NEWER_TOKEN_READ);
        assertThat(stale.lockName()).isEqualTo("stock");
        assertThat(stale.entityName()).contains("Item");
        assertThat(stale.staleToken()).isEqualTo(5);
        assertThat(stale.newerToken()).hasValue(6);
    }

    @Test
    void unknownFactsAreEmptyAndLeftOutOfTheMessage() {
        StaleFencingTokenException stale =
                new StaleFencingTokenException(Reason.LEASE_NOT_VALID, "stock", null, null, 5, null, null, null);
        assertThat(stale).hasMessage("Fenced write refused (LEASE_NOT_VALID): lock 'stock', token 5");
        assertThat(stale.entityName()).isEmpty();
        assertThat(stale.newerToken()).isEmpty();
    }

    @Test
    void aRefusalOfTheFenceGuardKeepsItsLockAndTokens() {
        StaleTokenException refusal = new StaleTokenException("stock", 5, 9);
        StaleFencingTokenException stale = StaleFencingTokenException.of(refusal);
        assertThat(stale.reason()).isEqualTo(Reason.NEWER_HOLDER_WROTE);
        assertThat(stale.lockName()).isEqualTo("stock");
        assertThat(stale.staleToken()).isEqualTo(5);
        assertThat(stale.newerToken()).hasValue(9);
        assertThat(stale).hasCause(refusal).hasMessageContaining("newer token 9");
    }

    @Test
    void isFoundInACauseChain() {
        StaleFencingTokenException stale =
                new StaleFencingTokenException(Reason.LEASE_NOT_VALID, "stock", null, null, 5, null, null, null);
        RollbackException wrapped = new RollbackException("commit failed", new IllegalStateException(stale));
        assertThat(StaleFencingTokenException.findIn(wrapped)).containsSame(stale);
        assertThat(StaleFencingTokenException.findIn(stale)).containsSame(stale);
        assertThat(StaleFencingTokenException.findIn(new RuntimeException(new RuntimeException())))
                .isEmpty();
        assertThat(StaleFencingTokenException.findIn(null)).isEmpty();
    }
}
