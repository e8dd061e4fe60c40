//! Mail to players, over SMTP to the operator's relay (issue 49).
//!
//! A message is never sent by the request that causes it: the request writes it to the outbox
//! (`crate::store::mail`) in the same transaction as what it tells, and a worker sends it
//! ([`crate::saga::mail::send_due`]), so a relay that is slow or away never blocks a login or a
//! registration, and a message is lost by nothing short of losing the database.
//!
//! With no relay configured (`LOTTO_SMTP_URL` unset: local mode), a message is kept in the
//! outbox as delivered, where the console and the tests read it.

use std::time::Duration;

use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use uuid::Uuid;

/// The sender when `LOTTO_MAIL_FROM` is not set.
pub const DEFAULT_FROM: &str = "Lottery <no-reply@lottery.example>";

/// How mail reaches players: the relay, and the site its links point to.
#[derive(Debug, Clone)]
pub struct Mail {
    pub relay: MailRelay,
    /// Where players open the web client (`LOTTO_PUBLIC_URL`), without a trailing `/`.
    pub site: String,
}

impl Mail {
    /// No relay: messages are kept in the outbox.
    pub fn local(site: &str) -> Mail {
        Mail { relay: MailRelay::Local, site: site.to_owned() }
    }
}

/// Where mail goes.
#[derive(Clone)]
pub enum MailRelay {
    /// Kept in the outbox, unsent (no relay configured).
    Local,
    /// Sent over SMTP to the relay, from `from`.
    Smtp { transport: Box<AsyncSmtpTransport<Tokio1Executor>>, from: Mailbox, domain: String },
}

impl std::fmt::Debug for MailRelay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The relay's URL may hold its password: never printed.
            MailRelay::Local => f.write_str("MailRelay::Local"),
            MailRelay::Smtp { from, .. } => write!(f, "MailRelay::Smtp(from {from})"),
        }
    }
}

/// Why a message did not go.
#[derive(Debug)]
pub enum SendFailure {
    /// The relay refused it for good (a 5xx answer: no such mailbox, a malformed address).
    Permanent(String),
    /// The relay was away, slow, or answered 4xx: tried again later.
    Transient(String),
}

impl MailRelay {
    /// The relay at `url` (`smtp://host:port` in the clear, `smtp://host?tls=required` with
    /// STARTTLS, `smtps://user:password@host` over TLS), sending as `from`.
    pub fn smtp(url: &str, from: &str) -> Result<MailRelay, String> {
        let from: Mailbox =
            from.parse().map_err(|e| format!("the sender {from:?} is not an address: {e}"))?;
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| format!("not an SMTP URL: {e}"))?
            .timeout(Some(Duration::from_secs(20)))
            .build();
        let domain = from.email.domain().to_owned();
        Ok(MailRelay::Smtp { transport: Box::new(transport), from, domain })
    }

    /// Whether messages are sent (rather than kept in the outbox).
    pub fn sends(&self) -> bool {
        matches!(self, MailRelay::Smtp { .. })
    }

    /// Sends message `id` to `to`. Its `Message-ID` is made from `id`, so the one message
    /// sent twice (a worker killed between the relay's answer and the outbox's note) is one
    /// message to every mail program that reads it.
    pub async fn send(&self, id: Uuid, to: &str, subject: &str, body: &str) -> Result<(), SendFailure> {
        let MailRelay::Smtp { transport, from, domain } = self else { return Ok(()) };
        let to: Mailbox = to.parse().map_err(|e| SendFailure::Permanent(format!("not an address: {e}")))?;
        let message = Message::builder()
            .from(from.clone())
            .to(to)
            .subject(subject)
            .message_id(Some(format!("<{id}@{domain}>")))
            .header(ContentType::TEXT_PLAIN)
            .body(body.to_owned())
            .map_err(|e| SendFailure::Permanent(format!("the message cannot be made: {e}")))?;
        match transport.send(message).await {
            Ok(_) => Ok(()),
            Err(e) if e.is_permanent() => Err(SendFailure::Permanent(e.to_string())),
            Err(e) => Err(SendFailure::Transient(e.to_string())),
        }
    }
}
