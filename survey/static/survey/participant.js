// Participant pages, as an enhancement: every page also works as plain HTML forms.
// Item pages save answers in the background and only move on once the server confirms;
// keys 1-5 answer the first question, then the second, and Enter moves on. A pair's answers
// are sent together: one that leaves a question open waits for the rest (HOLD_MS at most), and
// the one that completes the pair waits a moment (SETTLE_MS), so that "Next" pressed meanwhile
// sends it with the move on: one request for the pair. A page hidden or left sends what waits
// at once. "Next" on a pair saved as it stands goes straight to the page the last save's reply
// named, posting nothing. A save that moves on to another pair brings that pair's page in its
// reply, shown in place of this one (with its address in the history): one request a pair.
// So do the forms of the steps before the pairs (the study link, consent, about you): their
// reply is the next step's page. The about-you page adds language rows without a reload.
(function () {
  "use strict";

  function setUpLanguageRows() {
    var button = document.querySelector("[data-add-language]");
    var template = document.getElementById("language-row-template");
    var rows = document.querySelector("[data-language-rows]");
    var total = document.querySelector("input[name='languages-TOTAL_FORMS']");
    if (!button || !template || !rows || !total) return;
    button.addEventListener("click", function (event) {
      event.preventDefault();
      var index = parseInt(total.value, 10) || 0;
      var html = template.innerHTML
        .replace(/__prefix__/g, String(index))
        .replace(/__number__/g, String(index + 1));
      rows.insertAdjacentHTML("beforeend", html);
      total.value = String(index + 1);
      rows.lastElementChild.querySelector("input").focus();
    });
  }

  // The item page shown handles the document's and the window's events through these (its
  // handlers replace the last page's when a pair is shown in place).
  var handlers = {};
  function relay(type) {
    return function (event) {
      if (handlers[type]) handlers[type](event);
    };
  }
  ["visibilitychange", "keydown"].forEach(function (type) {
    document.addEventListener(type, relay(type));
  });
  ["pagehide", "beforeunload"].forEach(function (type) {
    window.addEventListener(type, relay(type));
  });

  // The next pair's page, from a save's reply, in place of this one: its body and title, its
  // address in the history, focus at the start of its content as after loading it.
  var swaps = "DOMParser" in window && "pushState" in window.history;
  function address() {
    return window.location.pathname + window.location.search; // not the #part: the same page
  }
  // The address this document was loaded at (the navigation's, which pushState leaves as it
  // was): Back or Forward pressed before this script ran moved the address, not the page.
  function loadedAt() {
    var loads = window.performance && performance.getEntriesByType
      ? performance.getEntriesByType("navigation") : [];
    if (!loads.length) return address();
    var url = new URL(loads[0].name);
    return url.pathname + url.search;
  }
  var shown = loadedAt();
  function showInPlace(body) {
    var next = new DOMParser().parseFromString(body.page, "text/html");
    document.title = next.title;
    document.body.replaceWith(document.adoptNode(next.body));
    if (body.next === address()) window.history.replaceState(null, "", body.next);
    else window.history.pushState(null, "", body.next);
    shown = address();
    window.scrollTo(0, 0);
    document.getElementById("main").focus({ preventScroll: true });
    start();
    document.dispatchEvent(new CustomEvent("wojdb:shown")); // the word marks' script, say
  }
  // Back and forward between pairs shown in place load the page the address names.
  function loadWhatTheAddressNames() {
    if (address() !== shown) window.location.reload();
  }
  window.addEventListener("popstate", loadWhatTheAddressNames);
  loadWhatTheAddressNames();

  // A step's form (data-step) posted by the script: the reply is the next step's page (JSON:
  // its address and the page), or this page again with what to correct (HTML), either shown
  // in place. Anything else, or no reply, and the form is sent as the browser would.
  function setUpStep(form) {
    form.addEventListener("submit", function (event) {
      if (!swaps || !window.fetch || form.hasAttribute("data-sent")) return;
      event.preventDefault();
      if (form.hasAttribute("data-sending")) return; // pressed again while the first is on its way
      form.setAttribute("data-sending", "");
      var submitter = event.submitter;
      var data = new FormData(form);
      if (submitter && submitter.name) data.append(submitter.name, submitter.value);
      function asTheBrowserWould() {
        form.setAttribute("data-sent", "");
        if (submitter && form.requestSubmit) form.requestSubmit(submitter);
        else form.submit();
      }
      fetch(form.action, {
        method: "POST",
        body: data,
        credentials: "same-origin",
        headers: { Accept: "application/json, text/html" },
      })
        .then(function (response) {
          var type = response.headers.get("Content-Type") || "";
          if (type.indexOf("application/json") === 0) {
            return response.json().then(function (body) {
              if (!body.page) throw new Error("no page");
              showInPlace(body);
            });
          }
          if (type.indexOf("text/html") === 0) {
            var url = new URL(response.url);
            return response.text().then(function (page) {
              showInPlace({ page: page, next: url.pathname + url.search });
            });
          }
          throw new Error("not a page");
        })
        .catch(asTheBrowserWould);
    });
  }

  function focusErrors() {
    var summary = document.querySelector("[data-error-summary]");
    if (summary) summary.focus();
  }

  function setUpAnswers(form) {
    // The messages come translated from the page (data-message-* of the form).
    var message = form.dataset;
    var state = form.querySelector("[data-save-state]");
    var token = form.querySelector("input[name='csrfmiddlewaretoken']");
    var clientMs = form.querySelector("input[name='client_ms']");
    var nextButton = form.querySelector(".nav button.primary");
    var shortcutsButton = form.querySelector("[data-shortcuts]");
    var scales = Array.prototype.slice.call(form.querySelectorAll("fieldset[data-scale]"));
    var hint = form.querySelector("[data-keyboard-hint]");
    var base = parseInt(form.getAttribute("data-client-ms"), 10) || 0;
    var spent = 0;
    var visibleSince = document.visibilityState === "visible" ? performance.now() : null;
    var queue = Promise.resolve();
    var dirty = false;
    var leaving = false;
    var retryTimer = null;
    var waitTimer = null; // answers waiting to be sent (HOLD_MS or SETTLE_MS)
    var SETTLE_MS = 1500;
    var HOLD_MS = 30000;
    var savedAnswers = null; // the answers as the last save sent them (answers())
    var moves = null; // where each button leads from them, as that save's reply said

    if (hint) hint.hidden = false;

    // The 1-5 and Enter shortcuts can be turned off (WCAG 2.1.4); the choice is remembered.
    var SHORTCUTS = "wojdb-shortcuts";
    var shortcuts = true;
    try {
      shortcuts = window.localStorage.getItem(SHORTCUTS) !== "off";
    } catch (error) {
      // No storage (a private window, say): the choice lasts for this page only.
    }
    function shortcutsOn() {
      return shortcuts;
    }
    function showShortcuts() {
      shortcutsButton.setAttribute("aria-pressed", shortcuts ? "true" : "false");
      shortcutsButton.textContent = shortcuts ? message.messageShortcutsOff : message.messageShortcutsOn;
    }
    if (shortcutsButton) {
      showShortcuts();
      shortcutsButton.addEventListener("click", function () {
        shortcuts = !shortcuts;
        try {
          window.localStorage.setItem(SHORTCUTS, shortcuts ? "on" : "off");
        } catch (error) {
          // Kept for this page only, as above.
        }
        showShortcuts();
      });
    }

    handlers = {}; // this page's, in place of the last one's

    // Time on the item counts only while the page is visible; a tab put aside may be
    // discarded without notice, so what waits is sent then.
    handlers.visibilitychange = function () {
      if (document.visibilityState === "visible") {
        visibleSince = performance.now();
      } else {
        if (visibleSince !== null) spent += performance.now() - visibleSince;
        visibleSince = null;
        if (waitTimer !== null) saveInBackground();
      }
    };
    function elapsed() {
      var now = visibleSince === null ? 0 : performance.now() - visibleSince;
      return Math.round(base + spent + now);
    }

    function show(text, kind) {
      state.textContent = text;
      state.setAttribute("data-kind", kind || "");
    }

    function setBasis(body) {
      ["holistic", "order"].forEach(function (name) {
        var value = body[name] === null || body[name] === undefined ? "" : String(body[name]);
        form.querySelector("input[name='was_" + name + "']").value = value;
      });
    }

    function showSaved(body) {
      ["holistic", "order"].forEach(function (name) {
        form.querySelectorAll("input[name='" + name + "']").forEach(function (radio) {
          radio.checked = body[name] !== null && radio.value === String(body[name]);
        });
      });
    }

    // A question still to answer says so (as the server's page does), or no longer.
    function setMissing(fieldset, missing) {
      var note = fieldset.querySelector("[data-missing]");
      var described = (fieldset.getAttribute("aria-describedby") || "").split(" ");
      var id = fieldset.getAttribute("data-scale") + "-missing";
      fieldset.classList.toggle("missing", missing);
      if (missing && !note) {
        note = document.createElement("p");
        note.className = "missing-note";
        note.id = id;
        note.setAttribute("data-missing", "");
        note.textContent = message.messageMissing;
        fieldset.querySelector(".ends").insertAdjacentElement("beforebegin", note);
        described.push(id);
      } else if (!missing && note) {
        note.remove();
        described = described.filter(function (each) {
          return each !== id;
        });
      }
      described = described.filter(Boolean).join(" ");
      if (described) fieldset.setAttribute("aria-describedby", described);
      else fieldset.removeAttribute("aria-describedby");
    }

    // The questions the server says are still to answer: marked, and the first one focused.
    function markMissing(names) {
      var first = null;
      scales.forEach(function (fieldset) {
        var missing = names.indexOf(fieldset.getAttribute("data-scale")) !== -1;
        setMissing(fieldset, missing);
        if (missing && !first) first = fieldset;
      });
      if (first) focusScale(first);
    }

    // What the participant has given: the form without its token, timing and basis.
    function answers() {
      var given = new URLSearchParams();
      new FormData(form).forEach(function (value, name) {
        if (!/^(csrfmiddlewaretoken|client_ms|go|was_.*)$/.test(name)) given.append(name, value);
      });
      return given.toString();
    }

    function post(go) {
      clientMs.value = String(elapsed());
      var data = new FormData(form);
      data.set("go", go);
      var sent = answers();
      return fetch(form.action, {
        method: "POST",
        // URL-encoded, as the form itself posts: Django reads that several times faster than
        // multipart, and every answer is one such post.
        body: new URLSearchParams(data),
        credentials: "same-origin",
        headers: { Accept: "application/json" },
        // Sent to the end even if the page is closed meanwhile.
        keepalive: true,
      }).then(function (response) {
        return response.json().then(
          function (body) {
            return { status: response.status, body: body, sent: sent };
          },
          function () {
            return { status: response.status, body: null, sent: sent };
          }
        );
      });
    }

    // One save at a time, in order; each sends the form as it is when its turn comes.
    function attempt(go, renewed) {
      show(message.messageSaving, "busy");
      moves = null;
      return post(go).then(
        function (reply) {
          var body = reply.body;
          if (!body) {
            // Not an answer from this page's server code: a lost link, or a server in trouble.
            if (reply.status === 404) {
              show(message.messageGone, "error");
              throw new Error("gone");
            }
            show(message.messageOffline, "error");
            throw new Error("offline");
          }
          if (body.saved) {
            setBasis(body);
            dirty = false;
            form.dispatchEvent(new CustomEvent("wojdb:answer", { detail: body }));
            if (body.reason === "incomplete") {
              // Saved, but the study asks for both answers before moving on.
              show(body.message, "error");
              markMissing(body.missing);
              throw new Error("incomplete");
            }
            savedAnswers = reply.sent;
            moves = body.moves || null;
            show(message.messageSaved, "");
            return body;
          }
          if (body.reason === "expired" && !renewed) {
            token.value = body.csrf;
            return attempt(go, true);
          }
          if (body.reason === "completed") {
            leaving = true;
            window.location.assign(body.next);
          } else if (body.reason === "conflict") {
            showSaved(body);
            setBasis(body);
            dirty = false;
            form.dispatchEvent(new CustomEvent("wojdb:answer", { detail: body }));
          }
          show(body.reason === "expired" ? message.messageCookies : body.message, "error");
          throw new Error(body.reason);
        },
        function () {
          show(message.messageOffline, "error");
          throw new Error("offline");
        }
      );
    }

    function save(go) {
      var result = queue.then(function () {
        return attempt(go, false);
      });
      queue = result.catch(function () {});
      return result;
    }

    function saveInBackground() {
      dirty = true;
      clearTimeout(retryTimer);
      clearTimeout(waitTimer);
      waitTimer = null;
      save("stay").catch(function (error) {
        if (error.message === "offline") retryTimer = setTimeout(saveInBackground, 3000);
      });
    }

    // The scales, and the word marks where the study asks for them: a word (its box may stand
    // in the sentence, outside the question's fieldset) or "none".
    var asksMarks = form.querySelector("input[name='marks_none']") !== null;
    function everyQuestionAnswered() {
      var scalesAnswered = scales.every(function (fieldset) {
        return fieldset.querySelector("input:checked") !== null;
      });
      var marked = "input[name='marks']:checked, input[name='marks_none']:checked";
      return scalesAnswered && (!asksMarks || form.querySelector(marked) !== null);
    }

    // Saved after `ms`, unless "Next" sends it first or the page is hidden or left. An answer
    // held for the rest of its pair is not being saved yet, so the page says nothing of it.
    function saveAfter(ms) {
      dirty = true;
      clearTimeout(retryTimer);
      clearTimeout(waitTimer);
      show(ms === SETTLE_MS ? message.messageSaving : "", ms === SETTLE_MS ? "busy" : "");
      waitTimer = setTimeout(saveInBackground, ms);
    }

    form.addEventListener("change", function (event) {
      var answered = event.target.closest("fieldset.missing");
      if (answered && event.target.type === "radio") setMissing(answered, false);
      var type = event.target.type;
      if (type === "radio" || type === "checkbox" || event.target.name === "comment") {
        saveAfter(everyQuestionAnswered() ? SETTLE_MS : HOLD_MS);
      }
    });

    // A page being left sends what waits itself, as the queue's next turn would never come
    // (keepalive carries it to the end).
    handlers.pagehide = function () {
      if (waitTimer === null) return;
      clearTimeout(waitTimer);
      waitTimer = null;
      post("stay").catch(function () {});
    };

    // "Next" (or "Back"): where nothing changed since the last save, the page its reply named;
    // else the answers are posted with the move, as the page would be without this script.
    function moveOn(go) {
      clearTimeout(waitTimer);
      waitTimer = null;
      var result = queue.then(function () {
        var known = moves && answers() === savedAnswers ? moves[go] : undefined;
        return known ? { next: known } : attempt(go, false);
      });
      queue = result.catch(function () {});
      return result;
    }

    var moving = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (moving) return;
      moving = true;
      var go = (event.submitter || nextButton).value;
      clearTimeout(retryTimer);
      moveOn(go).then(
        function (body) {
          leaving = true;
          if (body.page && swaps) showInPlace(body);
          else window.location.assign(body.next);
        },
        function (error) {
          moving = false;
          if (error.message === "offline") {
            show(message.messageRetry, "error");
          }
        }
      );
    });

    // Not for an answer still waiting to be saved: leaving sends it (pagehide).
    handlers.beforeunload = function (event) {
      if (dirty && !leaving && waitTimer === null) {
        event.preventDefault();
        event.returnValue = "";
      }
    };

    function firstUnanswered() {
      for (var i = 0; i < scales.length; i++) {
        if (!scales[i].querySelector("input:checked")) return i;
      }
      return 0;
    }

    function focusScale(fieldset) {
      var radio = fieldset.querySelector("input:checked") || fieldset.querySelector("input");
      radio.focus();
    }

    handlers.keydown = function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
      if (!shortcutsOn()) return;
      var target = event.target;
      if (target.closest("textarea, select, input:not([type='radio'])")) return;
      if (/^[1-5]$/.test(event.key)) {
        event.preventDefault();
        var current = target.closest("fieldset[data-scale]");
        var index = current ? scales.indexOf(current) : firstUnanswered();
        var radio = scales[index].querySelector("input[value='" + event.key + "']");
        radio.checked = true;
        radio.dispatchEvent(new Event("change", { bubbles: true }));
        if (index + 1 < scales.length) focusScale(scales[index + 1]);
        else radio.focus();
      } else if (event.key === "Enter" && !target.closest("button, a")) {
        event.preventDefault();
        form.requestSubmit(nextButton);
      }
    };
  }

  function start() {
    setUpLanguageRows();
    focusErrors();
    document.querySelectorAll("form[data-step]").forEach(setUpStep);
    var form = document.querySelector("form[data-answer-form]");
    if (form) setUpAnswers(form);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
