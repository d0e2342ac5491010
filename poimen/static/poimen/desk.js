// The review desk's behaviour: keyboard shortcuts and the passage links of the record view.
// One file on purpose, so that the Content Security Policy can forbid inline script and eval.
//
// Every shortcut clicks a real button or link that is on the page (marked data-shortcut), so a
// key does exactly what the mouse would do, CSRF and all, and nothing happens that the page
// does not offer.
(function () {
  "use strict";

  var CURRENT = "is-current";
  var lastJudgedRow = null;
  var currentId = null;

  function isTyping(element) {
    if (!element || element === document.body) {
      return false;
    }
    if (element.isContentEditable) {
      return true;
    }
    var tag = element.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
  }

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-row]"));
  }

  function currentRow() {
    return document.querySelector("[data-row]." + CURRENT);
  }

  function select(row) {
    var previous = currentRow();
    if (previous) {
      previous.classList.remove(CURRENT);
      previous.removeAttribute("aria-current");
    }
    currentId = row ? row.id : null;
    if (row) {
      row.classList.add(CURRENT);
      row.setAttribute("aria-current", "true");
      row.scrollIntoView({ block: "nearest" });
    }
  }

  function move(step) {
    var list = rows();
    if (list.length) {
      var index = list.indexOf(currentRow());
      var next = index === -1 ? (step > 0 ? 0 : list.length - 1) : index + step;
      if (next >= 0 && next < list.length) {
        select(list[next]);
      } else if (next >= list.length) {
        clickFirst(document, "[data-shortcut='more']");
      }
      return;
    }
    // A page without rows (the record view) moves along the list it was opened from.
    clickFirst(document, step > 0 ? "[data-shortcut='next']" : "[data-shortcut='prev']");
  }

  function clickFirst(scope, selector) {
    var target = scope.querySelector(selector);
    if (target && !target.disabled) {
      target.click();
      return true;
    }
    return false;
  }

  // A shortcut on a <summary> (a row's note, reason "other" asking for its note) opens its
  // fold and puts the cursor in the note: nothing is sent until the reviewer sends it.
  function openNote(summary) {
    var details = summary.closest("details");
    if (!details) {
      return;
    }
    // Open it and every fold around it ("other" sits among the reasons).
    for (var fold = details; fold; fold = fold.parentElement && fold.parentElement.closest("details")) {
      fold.open = true;
    }
    var field = details.querySelector("[data-note-field]");
    if (field) {
      field.focus();
    }
  }

  function judge(key) {
    var row = currentRow();
    var selector = "[data-shortcut='" + key + "']";
    if (rows().length) {
      if (!row) {
        return;
      }
      var summary = row.querySelector("summary" + selector);
      if (summary) {
        openNote(summary);
        return;
      }
      if (clickFirst(row, selector)) {
        lastJudgedRow = row.id;
        move(1);
      }
      return;
    }
    clickFirst(document, selector);
  }

  function undo() {
    var row = lastJudgedRow && document.getElementById(lastJudgedRow);
    if (row && clickFirst(row, "[data-shortcut='u']")) {
      select(row);
      lastJudgedRow = null;
      return;
    }
    var current = currentRow();
    if (current && clickFirst(current, "[data-shortcut='u']")) {
      return;
    }
    // A row with a colleague's verdict offers no undo; it says why (poimen.verdicts).
    var refused = current && current.querySelector("[data-undo-refusal]");
    if (refused) {
      refused.hidden = false;
      return;
    }
    clickFirst(document, "[data-shortcut='u']:not([data-row] *)");
  }

  // While htmx is swapping, the new buttons may not be wired yet: a key pressed then would
  // submit a plain form. Such keys wait until the page has settled.
  function whenSettled(action, attempts) {
    var busy = document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling");
    if (busy && (attempts || 0) < 100) {
      window.setTimeout(function () {
        whenSettled(action, (attempts || 0) + 1);
      }, 20);
      return;
    }
    action();
  }

  // A verdict in flight on a page without rows (review mode, the record view), or review
  // mode's next record on its way: until it is shown, a key would act on a record the
  // reviewer has not seen, so keys are ignored, and the page says so (visible, and read out:
  // templates/partials/busy_state.html). List rows are not held: a row's key acts on the row
  // selected, which is on screen.
  var busy = false;

  function say(which) {
    var slot = document.getElementById("busy");
    var words = document.getElementById("busy-words");
    var chosen = which && words && words.content.querySelector("[data-busy='" + which + "']");
    if (slot) {
      slot.replaceChildren.apply(slot, chosen ? [chosen.cloneNode(true)] : []);
    }
  }

  function setBusy(on) {
    busy = on;
    var main = document.getElementById("main");
    if (main) {
      if (on) {
        main.setAttribute("aria-busy", "true");
      } else {
        main.removeAttribute("aria-busy");
      }
    }
    say(on ? "sending" : null);
  }

  function requestVerb(event) {
    var config = event.detail && event.detail.requestConfig;
    return ((config && config.verb) || "get").toLowerCase();
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var target = event.detail && event.detail.target;
    if ((requestVerb(event) !== "get" && !rows().length) || (target && target.id === "main")) {
      setBusy(true);
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    if (!busy) {
      return;
    }
    var xhr = event.detail && event.detail.xhr;
    if (event.detail && event.detail.successful && xhr && xhr.getResponseHeader("HX-Location")) {
      return; // the verdict is in; the next record is on its way (its afterSettle ends this)
    }
    // Anything swapped has settled by the next turn of the loop; a failure is told by
    // showFailure.
    window.setTimeout(function () {
      if (!document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling")) {
        setBusy(false);
      }
    }, 50);
  });

  // The next record is on screen once it is swapped in (a key then waits for it to settle,
  // whenSettled); a refusal or a question swapped elsewhere ends the wait when it settles.
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (busy && target && target.id === "main") {
      setBusy(false);
    }
  });

  document.addEventListener("htmx:afterSettle", function () {
    if (busy && !document.querySelector(".htmx-request")) {
      setBusy(false);
    }
  });

  // The keys that act on the record shown.
  var RECORD_KEYS = ["c", "f", "n", "1", "2", "3", "4", "e", "u", "j", "k", "o", "Enter"];

  function toggleHelp() {
    var help = document.getElementById("keys-help");
    if (!help) {
      return;
    }
    if (help.open) {
      help.close();
    } else {
      help.showModal();
    }
  }

  document.addEventListener("keydown", function (event) {
    // Ctrl+Enter (Cmd+Enter) in a note field sends its form, as its button would.
    var target = event.target;
    if (
      event.key === "Enter" &&
      (event.ctrlKey || event.metaKey) &&
      target.matches &&
      target.matches("[data-note-field]") &&
      target.form
    ) {
      event.preventDefault();
      target.form.requestSubmit();
      return;
    }
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (isTyping(event.target)) {
      if (event.key === "Escape") {
        event.target.blur();
      }
      return;
    }
    var help = document.getElementById("keys-help");
    if (help && help.open && event.key !== "?") {
      return;
    }
    if (busy && RECORD_KEYS.indexOf(event.key) !== -1) {
      event.preventDefault();
      say("ignored");
      return;
    }
    switch (event.key) {
      case "?":
        toggleHelp();
        break;
      case "/":
        var search = document.querySelector("[data-search]");
        if (!search) {
          return;
        }
        search.focus();
        search.select();
        break;
      // Moving may click a link just swapped in (review mode's skip): wait until htmx has
      // wired it, or the click would be a full page load.
      case "j":
        whenSettled(function () {
          move(1);
        });
        break;
      case "k":
        whenSettled(function () {
          move(-1);
        });
        break;
      case "c":
      case "f":
      case "n":
      case "1":
      case "2":
      case "3":
      case "4":
      case "e":
        var key = event.key;
        whenSettled(function () {
          judge(key);
        });
        break;
      case "u":
        whenSettled(undo);
        break;
      case "Enter":
      case "o":
        // Enter on a focused link or button is that control's own, never ours.
        var onControl = event.target.closest && event.target.closest("a, button, summary");
        if (!currentRow() || (event.key === "Enter" && onControl)) {
          return;
        }
        whenSettled(function () {
          var row = currentRow();
          if (row) {
            clickFirst(row, "[data-shortcut='open']");
          }
        });
        break;
      default:
        return;
    }
    event.preventDefault();
  });

  // Clicking a row selects it, so the keys then act on what the mouse pointed at.
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("[data-shortcut='help']")) {
      toggleHelp();
      return;
    }
    var row = event.target.closest && event.target.closest("[data-row]");
    if (row) {
      select(row);
    }
  });

  // Passages: clicking a highlight on one side scrolls the other side to its twin.
  document.addEventListener("click", function (event) {
    var mark = event.target.closest && event.target.closest("[data-passage]");
    if (!mark) {
      return;
    }
    var pane = mark.closest("[data-pane]");
    if (!pane) {
      return;
    }
    var otherSide = pane.getAttribute("data-pane") === "record" ? "artifact" : "record";
    var otherPane = document.querySelector("[data-pane='" + otherSide + "']");
    if (!otherPane) {
      return;
    }
    var twin = otherPane.querySelector("[data-passage='" + mark.getAttribute("data-passage") + "']");
    if (!twin) {
      return;
    }
    otherPane.scrollTop = twin.offsetTop - otherPane.clientHeight / 3;
    document.querySelectorAll(".is-focused").forEach(function (element) {
      element.classList.remove("is-focused");
    });
    mark.classList.add("is-focused");
    twin.classList.add("is-focused");
  });

  // The record view opens each pane at its first passage (a copy can start thousands of lines
  // in), and focus goes to the record's text, so the keys and the arrows work at once, also
  // right after a verdict brought the reader to the next record.
  function openAtFirstPassage(scope) {
    var panes = scope.querySelectorAll("[data-pane]");
    panes.forEach(function (pane) {
      var first = pane.querySelector("[data-passage]");
      if (first) {
        pane.scrollTop = Math.max(0, first.offsetTop - pane.clientHeight / 6);
      }
    });
    // A note asked for (reason "other" sent without one) keeps the cursor instead.
    var asked = scope.querySelector("[data-note-field][autofocus]");
    if (asked) {
      asked.focus();
      return;
    }
    var record = scope.querySelector("[data-pane='record']");
    if (record && (!document.activeElement || document.activeElement === document.body)) {
      record.focus({ preventScroll: true });
      var box = record.getBoundingClientRect();
      if (box.top > window.innerHeight || box.bottom < 0) {
        record.scrollIntoView({ block: "nearest" });
      }
    }
  }

  openAtFirstPassage(document);
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    // Another match shown, or (review mode) the next record swapped into the page.
    if (target && (target.id === "comparison" || target.id === "main")) {
      openAtFirstPassage(target);
    }
  });

  // A band of the passage strip brings its passage into view inside the pane (the link's own
  // jump would scroll the whole page too).
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("[data-strip-passage]");
    var body = link && link.closest(".pane-body");
    var pane = body && body.querySelector("[data-pane]");
    var number = link && link.getAttribute("data-strip-passage");
    var mark = pane && pane.querySelector("[data-passage='" + number + "']");
    if (!mark) {
      return;
    }
    event.preventDefault();
    pane.scrollTop = Math.max(0, mark.offsetTop - pane.clientHeight / 6);
  });

  // Filters left empty stay out of the URL that htmx pushes: shorter, bookmarkable links.
  document.addEventListener("htmx:configRequest", function (event) {
    var data = event.detail.formData;
    if (event.detail.verb !== "get" || !data) {
      return;
    }
    Array.from(data.keys()).forEach(function (key) {
      if (data.getAll(key).every(function (value) { return value === ""; })) {
        data.delete(key);
      }
    });
    // Enter in a filter field fires both "change" and "submit": the filters queue their
    // requests (hx-sync queue last, so a later change is never dropped), and the second of
    // two identical ones is not sent, nor pushed as a history entry of its own.
    var form = event.detail.elt;
    if (form && form.matches && form.matches("form.filters")) {
      var query = new URLSearchParams(data).toString();
      if (form.getAttribute("data-last-query") === query) {
        event.preventDefault();
        return;
      }
      form.setAttribute("data-last-query", query);
    }
  });

  // A refusal (views.common.htmx_refusal) names where it goes with HX-Retarget. htmx by
  // itself swaps only a 2xx answer; a refusal with a 4xx status (a request the desk's own
  // controls do not make, a permission taken away, a record gone) is shown all the same, and
  // is no error of the page's.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (xhr.status >= 400 && xhr.status < 500 && xhr.getResponseHeader("HX-Retarget")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // What failed where the server could not say why (a 5xx, an error page of a proxy, no
  // answer at all): htmx swaps nothing and says nothing, and the reviewer would take the
  // verdict for given. The words are base.html's (#htmx-failures, each one _refusal.html);
  // here only which one fits is chosen, and shown in the page's refusal slot.
  function showFailure(event, reached) {
    var detail = event.detail || {};
    var xhr = detail.xhr;
    var verb = ((detail.requestConfig && detail.requestConfig.verb) || "get").toLowerCase();
    var name = (verb === "get" ? "load" : "change") + (reached ? "-failed" : "-unreachable");
    var failures = document.getElementById("htmx-failures");
    var slot = document.getElementById("refusal");
    var chosen = failures && failures.content.querySelector("[data-failure='" + name + "'] [data-refusal]");
    if (!chosen || !slot) {
      return;
    }
    var alert = chosen.cloneNode(true);
    alert.textContent = alert.textContent.replace("{status}", xhr ? String(xhr.status) : "");
    slot.replaceChildren(alert);
    // Nothing shows as done that was not: a row whose verdict failed is selected again (the
    // selection had moved on), u has no "last judged" row to undo, and a filter set that
    // failed to load may be asked again (its query is not the one shown).
    var elt = detail.elt;
    var row = elt && elt.closest && elt.closest("[data-row]");
    if (row && document.body.contains(row)) {
      select(row);
    }
    lastJudgedRow = null;
    var filters = elt && elt.closest && elt.closest("form.filters");
    if (filters) {
      filters.removeAttribute("data-last-query");
    }
  }

  document.addEventListener("htmx:responseError", function (event) {
    showFailure(event, true);
  });
  document.addEventListener("htmx:sendError", function (event) {
    showFailure(event, false);
  });
  document.addEventListener("htmx:timeout", function (event) {
    showFailure(event, false);
  });

  // A refusal in the page's slot is about what was asked last: the next request clears it.
  document.addEventListener("htmx:beforeRequest", function () {
    var slot = document.getElementById("refusal");
    if (slot) {
      slot.replaceChildren();
    }
  });

  // New results swapped in by htmx: start the selection again at the top.
  // Back pressed twice quickly: two history restores are in flight, and the slower one must
  // not paint the page the user already left. Only the latest restore may land.
  var restoring = null;
  document.addEventListener("htmx:historyCacheMiss", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (restoring && restoring !== xhr && restoring.readyState !== 4) {
      restoring.abort();
    }
    restoring = xhr;
  });

  // A note asked for after a swap (reason "other" sent without one) takes the cursor.
  // (A row is swapped whole, so the field is looked up in the page, not in the old target.)
  document.addEventListener("htmx:afterSettle", function () {
    var asked = document.querySelector("[data-note-field][autofocus]");
    if (asked && document.activeElement !== asked) {
      asked.focus();
    }
  });

  // A row swapped after a verdict keeps the selection it had.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.hasAttribute && target.hasAttribute("data-results")) {
      lastJudgedRow = null;
      currentId = null;
      return;
    }
    if (!currentRow() && currentId) {
      var row = document.getElementById(currentId);
      if (row) {
        row.classList.add(CURRENT);
      }
    }
    // A swapped row may have changed height: the selected one stays in view.
    var current = currentRow();
    if (current) {
      current.scrollIntoView({ block: "nearest" });
    }
  });
})();
