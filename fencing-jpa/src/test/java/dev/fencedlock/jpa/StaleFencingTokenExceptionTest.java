package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.jpa.StaleFencingTokenException.Reason;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.RollbackException;
import org.junit.jupiter.api.Test;

class StaleFencingTokenExceptionTest {

    @Test
    void carriesTheFactsOfTheRefusalInItsMessage() {
        Object entity = new Object();
        StaleFencingTokenException stale =
                new StaleFencingTokenException(Reason.ROW_CHANGED, "stock", entity, "Item", 7L, 5, 6L, "detail", null);
        assertThat(stale)
                .isInstanceOf(OptimisticLockException.class)
                .hasMessage("Fenced write refused (ROW_CHANGED): lock 'stock', token 5, entity Item#7, row fence now 6:"
                        + " detail");
        assertThat(stale.getEntity()).isSameAs(entity);
        assertThat(stale.reason()).isEqualTo(Reason.ROW_CHANGED);
        assertThat(stale.lockName()).isEqualTo("stock");
        assertThat(stale.entityName()).contains("Item");
        assertThat(stale.id()).contains(7L);
        assertThat(stale.staleToken()).isEqualTo(5);
        assertThat(stale.currentToken()).hasValue(6);
    }

    @Test
    void unknownFactsAreEmptyAndLeftOutOfTheMessage() {
        StaleFencingTokenException stale =
                new StaleFencingTokenException(Reason.LEASE_NOT_VALID, "stock", null, null, null, 5, null, null, null);
        assertThat(stale).hasMessage("Fenced write refused (LEASE_NOT_VALID): lock 'stock', token 5");
        assertThat(stale.entityName()).isEmpty();
        assertThat(stale.id()).isEmpty();
        assertThat(stale.currentToken()).isEmpty();
    }

    @Test
    void aRefusalByTheLockFenceNamesTheLocksFence() {
        StaleFencingTokenException stale = new StaleFencingTokenException(
                Reason.NEWER_HOLDER_WROTE, "stock", null, null, null, 5, 9L, "detail", null);
        assertThat(stale)
                .hasMessage("Fenced write refused (NEWER_HOLDER_WROTE): lock 'stock', token 5, lock fence now 9:"
                        + " detail");
        assertThat(stale.currentToken()).hasValue(9);
    }

    @Test
    void isFoundInACauseChain() {
        StaleFencingTokenException stale =
                new StaleFencingTokenException(Reason.LEASE_NOT_VALID, "stock", null, null, null, 5, null, null, null);
        RollbackException wrapped = new RollbackException("commit failed", new IllegalStateException(stale));
        assertThat(StaleFencingTokenException.findIn(wrapped)).containsSame(stale);
        assertThat(StaleFencingTokenException.findIn(stale)).containsSame(stale);
        assertThat(StaleFencingTokenException.findIn(new RuntimeException(new RuntimeException())))
                .isEmpty();
        assertThat(StaleFencingTokenException.findIn(null)).isEmpty();
    }
}
