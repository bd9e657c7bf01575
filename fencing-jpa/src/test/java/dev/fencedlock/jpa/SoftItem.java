package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import org.hibernate.annotations.SoftDelete;

/** A fenced entity that Hibernate removes by setting its {@code deleted} column. */
@Entity
@Table(name = "soft_item")
@EntityListeners(FencingListener.class)
@SoftDelete
public class SoftItem {
    @Id
    private long id;

    private int quantity;

    @Version
    private long version;

    @FencingToken
    private long fence;

    protected SoftItem() {}

    public SoftItem(long id, int quantity) {
        this.id = id;
        this.quantity = quantity;
    }

    public void take(int amount) {
        quantity -= amount;
    }
}
