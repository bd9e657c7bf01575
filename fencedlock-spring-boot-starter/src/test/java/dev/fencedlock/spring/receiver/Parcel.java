package dev.fencedlock.spring.receiver;

import dev.fencedlock.jpa.FencingListener;
import dev.fencedlock.jpa.FencingToken;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** One order's parcel, fenced: every write carries the token it was written under. */
@Entity
@Table(name = "parcels")
@EntityListeners(FencingListener.class)
public class Parcel {
    @Id
    @Column(name = "order_id")
    private String orderId;

    @Column(nullable = false)
    private String contents;

    @FencingToken
    @Column(nullable = false)
    private long fence;

    @Version
    private Long version;

    protected Parcel() {}

    Parcel(String orderId) {
        this.orderId = orderId;
    }

    void contents(String contents) {
        this.contents = contents;
    }
}
