package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** Maps a table that gained its fence column through an ALTER TABLE migration. */
@Entity
@Table(name = "legacy_stock")
@EntityListeners(FencingListener.class)
public class LegacyStock {
    @Id
    private long id;

    private int quantity;

    @Version
    private long version;

    @FencingToken
    private long fence;

    protected LegacyStock() {}

    public int quantity() {
        return quantity;
    }

    public void take(int amount) {
        quantity -= amount;
    }

    public long fence() {
        return fence;
    }
}
