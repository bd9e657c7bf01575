package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.RollbackException;
import org.junit.jupiter.api.Test;

class StaleFencingTokenExceptionTest {

    @Test
    void carriesTheFactsOfTheCoreRefusalAndTheEntity() {
        Object entity = new Object();
        FenceRefusedException core = new FenceRefusedException(Reason.NEWER_TOKEN_READ, "stock", 5, 6L, "detail", null);
        StaleFencingTokenException stale = new StaleFencingTokenException(core, entity, "Item");
        assertThat(stale)
                .isInstanceOf(OptimisticLockException.class)
                .hasCause(core)
                .hasMessage("Fenced write refused for lock 'stock', token 5 (newer token 6): the data was already"
                        + " written under a newer token of the lock (detail) (entity Item)");
        assertThat(stale.getEntity()).isSameAs(entity);
        assertThat(stale.refusal()).isSameAs(core);
        assertThat(stale.reason()).isEqualTo(Reason.NEWER_TOKEN_READ);
        assertThat(stale.lockName()).isEqualTo("stock");
        assertThat(stale.entityName()).contains("Item");
        assertThat(stale.token()).isEqualTo(5);
        assertThat(stale.newerToken()).hasValue(6);
    }

    @Test
    void unknownFactsAreEmptyAndLeftOutOfTheMessage() {
        StaleFencingTokenException stale = StaleFencingTokenException.of(
                new FenceRefusedException(Reason.LEASE_NOT_VALID, "stock", 5, null, null, null));
        assertThat(stale)
                .hasMessage("Fenced write refused for lock 'stock', token 5: the lease was no longer valid"
                        + " (expired or lost)");
        assertThat(stale.entityName()).isEmpty();
        assertThat(stale.newerToken()).isEmpty();
    }

    @Test
    void aRefusalOfTheFenceRowKeepsItsLockAndTokens() {
        FenceRefusedException refusal =
                new FenceRefusedException(Reason.NEWER_TOKEN_REGISTERED, "stock", 5, 9L, null, null);
        StaleFencingTokenException stale = StaleFencingTokenException.of(refusal);
        assertThat(stale.reason()).isEqualTo(Reason.NEWER_TOKEN_REGISTERED);
        assertThat(stale.lockName()).isEqualTo("stock");
        assertThat(stale.token()).isEqualTo(5);
        assertThat(stale.newerToken()).hasValue(9);
        assertThat(stale).hasCause(refusal).hasMessageContaining("newer token 9");
    }

    @Test
    void isFoundInACauseChainAndSoIsTheCoreRefusal() {
        FenceRefusedException core = new FenceRefusedException(Reason.LEASE_NOT_VALID, "stock", 5, null, null, null);
        StaleFencingTokenException stale = StaleFencingTokenException.of(core);
        RollbackException wrapped = new RollbackException("commit failed", new IllegalStateException(stale));
        assertThat(StaleFencingTokenException.findIn(wrapped)).containsSame(stale);
        assertThat(StaleFencingTokenException.findIn(stale)).containsSame(stale);
        assertThat(FenceRefusedException.findIn(wrapped)).containsSame(core);
        assertThat(StaleFencingTokenException.findIn(new RuntimeException(new RuntimeException())))
                .isEmpty();
        assertThat(StaleFencingTokenException.findIn(null)).isEmpty();
        assertThat(FenceRefusedException.findIn(null)).isEmpty();
    }

    @Test
    void aWriteWithoutALeaseCarriesTheCoreRefusal() {
        NoLeaseBoundException refused = new NoLeaseBoundException("update of fenced entity x.Item");
        assertThat(refused.refusal().reason()).isEqualTo(Reason.NO_LEASE_BOUND);
        assertThat(refused.refusal().lockName()).isNull();
        assertThat(refused.refusal().token()).isEqualTo(FenceRefusedException.NO_TOKEN);
        assertThat(refused).hasMessageContaining("update of fenced entity x.Item");
        assertThat(refused.refusal()).hasMessageContaining("No lease is bound");
    }
}
